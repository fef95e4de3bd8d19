import type { Sandbox, ToolSet } from '@cordon/core'
import { summarize } from './run.js'

/**
 * A run kept in flight until the check lets it go: its program calls `hold.wait()`, a tool that
 * answers only on `release()`. `started` resolves once the call reached the host, so the run is
 * known to be executing, without guessing with timers.
 */
export interface HeldRun {
  started: Promise<void>
  release: () => void
  tools: ToolSet
}

export function heldRun(): HeldRun {
  let markStarted!: () => void
  let release!: () => void
  const started = new Promise<void>((resolve) => (markStarted = resolve))
  const released = new Promise<void>((resolve) => (release = resolve))
  const tools: ToolSet = {
    'hold.wait': {
      execute: async () => {
        markStarted()
        await released
        return 'released'
      },
    },
  }
  return { started, release, tools }
}

export const HELD_PROGRAM = 'return await hold.wait()'

/** Starts a held run on `sandbox` and resolves once it is executing; `result` is its RunResult. */
export async function startHeld(sandbox: Sandbox) {
  const held = heldRun()
  const result = sandbox.run(HELD_PROGRAM, { tools: held.tools })
  const first = await Promise.race([held.started.then(() => 'started'), result.then(() => 'ended')])
  if (first === 'ended') throw new Error(`the held run ended before its tool call: ${summarize(await result)}`)
  return { result, release: held.release }
}
