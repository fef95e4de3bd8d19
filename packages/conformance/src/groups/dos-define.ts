import type { RunOptions, RunResult } from '@cordon/core'
import { expectDeadline, expectHealthy, expectLimitName, expectNotLate, summarize, timedRun } from '../harness/run.js'
import type { CapabilityRequirement, ConformanceCheck } from '../types.js'

/** Deadline of the DoS runs: short, so the group stays quick; slack comes from the options. */
export const DOS_TIMEOUT_MS = 300

interface TimeoutCase {
  name: string
  /** Programs run one after another on the group's sandbox; each must end TIMEOUT. */
  programs: readonly string[]
  /**
   * Fresh for each program: its run options, and a check after the run (tool not called,
   * nothing late…) that throws on a problem.
   */
  prepare?: () => { options?: RunOptions; after?: () => void | Promise<void> }
}

/** Each program ends TIMEOUT within the deadline + slack, and the sandbox runs the next program. */
export function timeoutCase(spec: TimeoutCase): ConformanceCheck {
  return {
    group: 'dos',
    name: `dos: ${spec.name}`,
    async run({ sandbox, options }) {
      for (const program of spec.programs) {
        const prepared = spec.prepare?.()
        const run = { ...prepared?.options, timeoutMs: DOS_TIMEOUT_MS }
        const timed = await timedRun(sandbox, program, run, DOS_TIMEOUT_MS + options.timeoutSlackMs + 5_000)
        try {
          expectLimitName(expectDeadline(timed, 'TIMEOUT', DOS_TIMEOUT_MS, options.timeoutSlackMs), 'timeoutMs', DOS_TIMEOUT_MS)
          await prepared?.after?.()
        } catch (error) {
          throw new Error(`${program.slice(0, 120)}: ${(error as Error).message}`, { cause: error })
        }
        await expectHealthy(sandbox, 'a TIMEOUT')
      }
    },
  }
}

interface BoundedCase {
  name: string
  programs: readonly string[]
  timeoutMs: number
  options?: () => RunOptions
  requires?: CapabilityRequirement
  /** Why `result` is not an acceptable ending, or undefined when it is. */
  accept(result: RunResult): string | undefined
}

/**
 * Each program ends within its timeoutMs + slack with an acceptable result (a TIMEOUT must
 * also not come early), and the sandbox runs the next program.
 */
export function boundedCase(spec: BoundedCase): ConformanceCheck {
  return {
    group: 'dos',
    name: `dos: ${spec.name}`,
    requires: spec.requires,
    timeoutMs: 30_000,
    async run({ sandbox, options }) {
      for (const program of spec.programs) {
        const run = { ...spec.options?.(), timeoutMs: spec.timeoutMs }
        const timed = await timedRun(sandbox, program, run, spec.timeoutMs + options.timeoutSlackMs + 20_000)
        const what = program.slice(0, 120)
        if (!timed.result.ok && timed.result.error.code === 'TIMEOUT')
          expectDeadline(timed, 'TIMEOUT', spec.timeoutMs, options.timeoutSlackMs)
        try {
          expectNotLate(timed, spec.timeoutMs, options.timeoutSlackMs, 'the result')
        } catch (error) {
          throw new Error(`${what}: ${(error as Error).message} (${summarize(timed.result)})`, { cause: error })
        }
        const problem = spec.accept(timed.result)
        if (problem !== undefined) throw new Error(`${what}: ${problem}, got ${summarize(timed.result)}`)
        await expectHealthy(sandbox, what)
      }
    },
  }
}

/** `accept` for: ok with one of `values`, or an error with one of `codes`. */
export function oneOf(values: readonly unknown[], codes: readonly string[]): (result: RunResult) => string | undefined {
  return (result) => {
    if (result.ok ? values.includes(result.value) : codes.includes(result.error.code)) return undefined
    const wanted = [...values.map((v) => `ok ${JSON.stringify(v)}`), ...codes]
    return `expected ${wanted.join(' or ')}`
  }
}
