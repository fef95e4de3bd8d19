/**
 * Entry of an engine child (dist/engine-child.js): a long-lived, locked-down Node process that
 * serves one engine backend (isolated-vm or QuickJS) to the host over the channel protocol, on
 * length-prefixed frames through its stdin and stdout. Each run gets a fresh engine instance
 * (an isolate, a QuickJS runtime) from that backend; the process boundary protects the host.
 *
 * The host is trusted here; it checks everything this side sends. The child leaves when its stdin
 * closes or its parent changes (the host died).
 */
import { createRequire } from 'node:module'
import type { SandboxBackend, SyncReply, serveBackend } from '@cordon/core/backend'
import { encodeFrame } from '../framing.js'
import { listenToHost } from '../child/host-link.js'
import { BATCH_FRAME, FATAL_FRAME, SYNC_REPLY_FRAME, type EngineInit } from './engine-init.js'

// Frames own stdout: anything else the process prints goes to stderr, where the host keeps a tail.
const writeFrame = process.stdout.write.bind(process.stdout)
process.stdout.write = process.stderr.write.bind(process.stderr)
const send = (message: unknown[]) => writeFrame(encodeFrame(message))

// Promises a guest leaves rejected are its own affair, not a reason to crash.
process.on('unhandledRejection', () => {})

let served: { receive(batch: unknown): void } | undefined
let starting = false
/** Batches that came while the engine loaded. */
const early: unknown[] = []

function quit(reason: string): never {
  process.stderr.write(`cordon engine child: ${reason}\n`)
  process.exit(70)
}

async function start(init: EngineInit): Promise<void> {
  let backend: SandboxBackend
  let serve: typeof serveBackend
  try {
    // The engine's own copy of core, so both speak of the same runs, stops and errors.
    serve = ((await import(init.coreUrl)) as { serveBackend: typeof serveBackend }).serveBackend
    const module = (await import(init.moduleUrl)) as Record<string, (options: object) => SandboxBackend>
    backend =
      init.engine === 'isolated-vm'
        ? // No deeper pool for bursts: the child's data segment is sized for its runs (engine-backend.ts).
          module.createIvmBackend!({ isolatedVm: () => loadAddon(init.addons), poolBurstSize: 0 })
        : module.createQuickJSBackend!({ thread: 'worker', workers: init.runs })
  } catch (error) {
    const denied = (error as { resource?: unknown } | null)?.resource
    const what = error instanceof Error ? error.message : String(error)
    send([FATAL_FRAME, `the ${init.engine} engine could not be loaded: ${what}${typeof denied === 'string' ? ` (${denied})` : ''}`])
    return
  }
  served = serve(backend, {
    send: (batch) => send([BATCH_FRAME, batch]),
    // A synchronous tool: this child's thread waits for the host's answer (see engine-init.ts).
    callSync(report) {
      send([BATCH_FRAME, [report]])
      return link.waitFor(SYNC_REPLY_FRAME)[1] as SyncReply
    },
  })
  for (const batch of early.splice(0)) served.receive(batch)
}

/** The first of isolated-vm's builds that loads in this Node (each is built for one ABI). */
function loadAddon(paths: readonly string[]): unknown {
  const require = createRequire(import.meta.url)
  const causes: string[] = []
  for (const path of paths) {
    try {
      return require(path)
    } catch (error) {
      // The permission model names what it refused: the one thing that explains it.
      const denied = (error as { resource?: unknown } | null)?.resource
      const message = error instanceof Error ? error.message.split('\n')[0]! : String(error)
      causes.push(typeof denied === 'string' ? `${message} (${denied})` : message)
    }
  }
  throw new Error(paths.length === 0 ? 'isolated-vm is not installed' : causes.join('; '))
}

function handle(frame: unknown[]): void {
  const [kind, body] = frame
  if (kind === 'init') {
    if (starting) quit('init sent twice')
    starting = true
    void start(body as EngineInit)
    return
  }
  if (kind !== BATCH_FRAME) quit(`unknown frame ${String(kind)}`)
  if (!starting) quit('a batch before init')
  if (served === undefined) early.push(body)
  else served.receive(body)
}

const link = listenToHost(handle, quit)
