/** The first frame a host sends an engine child: which engine to serve, and how. Shared by both sides. */
export type EngineName = 'isolated-vm' | 'quickjs'

export interface EngineInit {
  engine: EngineName
  /** file: URL of the engine backend package's entry, resolved by the host (the child cannot search). */
  moduleUrl: string
  /** file: URL of `@cordon/core/backend` as the engine package resolves it. */
  coreUrl: string
  /**
   * isolated-vm's entry files to try in order (absolute paths, resolved by the host): a child
   * under the permission model may not search node_modules for them.
   */
  addons: string[]
  /** How many runs the child serves at once (QuickJS: its worker threads). */
  runs: number
}

/** Frame kinds: the channel's batches both ways, and the child's last word when its engine cannot load. */
export const BATCH_FRAME = 'b'
export const FATAL_FRAME = 'fatal'
/**
 * The host's answer to a synchronous tool call (`['call-sync', …]` in a batch). The child's
 * thread blocks on stdin for it, so the other runs of that child wait while the host runs the
 * tool: synchronous tools are meant to be quick.
 */
export const SYNC_REPLY_FRAME = 'sync'
