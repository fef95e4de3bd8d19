/**
 * The guarded fetch as a reserved tool of the run. The guest's `fetch` (installed by the guest
 * runtime when the run has the option) calls it through the same bridge as every tool, so the
 * run's tool-call count, concurrency cap, events and stop all apply to it. The network code is
 * loaded on the first call only.
 */
import type { ToolDefinition } from '../options.js'
import type { ToolDescriptor } from '../backend/v1/sandbox-backend.js'
import type { ToolRegistry } from '../tools/tool-registry.js'
import type { FetchPolicy } from './fetch-options.js'
import type { RunFetcher } from './run-fetcher.js'

/** The reserved tool name; no user tool may take it while the run has `fetch`. */
export const FETCH_TOOL_NAME = 'fetch'
/** Globals the guest runtime defines for the fetch API; tools and globals may not take them. */
export const FETCH_GLOBAL_NAMES: readonly string[] = ['fetch', 'Headers', 'Request', 'Response']
export const FETCH_DESCRIPTOR: ToolDescriptor = Object.freeze({ name: FETCH_TOOL_NAME, sync: false })

export interface RunFetch {
  /** The run's registry with the reserved tool added (the guest installs only the user's tools). */
  readonly registry: ToolRegistry
  /** Ends the run's in-flight requests and closes its connections. */
  close(): void
}

export function createRunFetch(policy: FetchPolicy, registry: ToolRegistry): RunFetch {
  let fetcher: Promise<RunFetcher> | undefined
  let closed = false
  const tool: ToolDefinition = {
    description: 'the guarded fetch of the run',
    async execute(args, { signal }) {
      fetcher ??= import('./run-fetcher.js').then(({ RunFetcher }) => new RunFetcher(policy))
      const instance = await fetcher
      if (closed) instance.close()
      return instance.fetch(args, signal)
    },
  }
  const byName = new Map(registry.byName)
  byName.set(FETCH_TOOL_NAME, tool)
  return {
    registry: { ...registry, byName },
    close() {
      closed = true
      void fetcher?.then((instance) => instance.close())
    },
  }
}
