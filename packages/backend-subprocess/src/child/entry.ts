/**
 * Entry of a guest child process (built to dist/child.js as one self-contained file: under
 * the permission model this file is the only one the child may read).
 *
 * Life of a child: the host sends `init` → the child prepares a fresh guest context and
 * answers `ready` → the host sends `run` (and later `settle`s) → the child reports logs,
 * tool calls and `done` → the host kills it. One run per child, never reused — unless the
 * host sent `session` before the first run: then further `run`s (and `usage` queries) may
 * follow each `done`, in the same guest context, until the host kills the child.
 * The child leaves when its stdin closes or its parent changes (the host died), and never
 * runs guest code past the run's deadline, so it cannot outlive a dead host for long.
 */
import { encodeFrame } from '../framing.js'
import { listenToHost } from './host-link.js'
import { SYNC_REPLY, type InitMessage, type RunMessage } from '../messages.js'
import { prepareGuest, type ChildOutput, type PreparedGuest } from './guest-context.js'
import { probeReport } from './probe.js'
import { warmUp } from './warm-up.js'

const out: ChildOutput = {
  send(message) {
    process.stdout.write(encodeFrame(message))
  },
  callSync(name, args) {
    out.send(['call-sync', name, args])
    const [, reply] = link.waitFor(SYNC_REPLY)
    return typeof reply === 'string' ? reply : quit('a malformed synchronous reply')
  },
  exit(code) {
    process.exit(code)
  },
}

function quit(reason: string): never {
  process.stderr.write(`cordon child: ${reason}\n`)
  process.exit(70)
}

// Promises the guest leaves rejected are its own affair, not a reason to crash.
process.on('unhandledRejection', () => {})

let guest: PreparedGuest | undefined

function handle(message: unknown[]): void {
  const [kind, a, b, c] = message
  if (kind === 'init') {
    if (guest !== undefined) quit('init sent twice')
    warmUp(a as InitMessage)
    guest = prepareGuest(a as InitMessage, out)
    out.send(['ready'])
    return
  }
  if (guest === undefined) quit(`${String(kind)} before init`)
  if (kind === 'run') guest.run(a as RunMessage)
  else if (kind === 'settle') guest.settle(a as number, b as boolean, c as string)
  else if (kind === 'session') guest.keep()
  else if (kind === 'usage') guest.usage()
  else if (kind === 'probe') void probeReport().then((report) => out.send(['probe', report]))
  else quit(`unknown message ${String(kind)}`)
}

const link = listenToHost(handle, quit)
