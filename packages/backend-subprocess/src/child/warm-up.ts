/**
 * Runs a small program through a throwaway guest while the child is still starting, so the
 * real run does not pay for compiling the runtime and the child's own code on first use.
 * The throwaway context is dropped; only compiled code (shared through V8's compilation
 * cache, keyed by source text) carries over — no object or state of it does.
 */
import { encodeFrame } from '../framing.js'
import type { InitMessage } from '../messages.js'
import { prepareGuest } from './guest-context.js'

const SETUP =
  '{"tools":[{"name":"warm.up","sync":false}],"limits":{"maxOutputBytes":65536,"maxLogEntries":10,"maxLogBytes":100},"globals":null}'
const PROGRAM = '(async function () {\n  console.log("x", 1)\n  return [1, "a", { b: true }, new Map([[1, 2]])]\n})'

export function warmUp(init: InitMessage): void {
  const guest = prepareGuest(
    { ...init, exposeProcess: false },
    {
      send(message) {
        encodeFrame(message)
      },
      // The warm-up program has no synchronous tools.
      callSync: () => '{"ok":false,"message":"no synchronous tools while warming up"}',
      exit() {},
    },
  )
  guest.run({
    setup: SETUP,
    script: PROGRAM,
    filename: 'warm-up.js',
    deadline: Date.now() + 5_000,
    memoryBytes: 2 ** 40,
    maxErrorChars: 65_536,
  })
}
