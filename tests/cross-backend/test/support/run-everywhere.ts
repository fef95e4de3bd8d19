/**
 * Runs one program on every backend, one backend after the other: on two cores, running them at
 * once only makes them fight (a subprocess run is mostly a Node child starting up).
 */
import type { RunOptions, RunResult } from '@cordon/core'
import { BACKEND_NAMES, type BackendName, type Sandboxes } from './backends.js'
import { comparable, type Comparable } from './comparable.js'

export type Outcomes = Record<BackendName, Comparable>

export async function runEverywhere(
  sandboxes: Sandboxes,
  code: string,
  options: RunOptions = {},
  engineMessage = false,
): Promise<Outcomes> {
  const results: RunResult[] = []
  for (const name of BACKEND_NAMES) results.push(await sandboxes[name].run(code, options))
  return Object.fromEntries(BACKEND_NAMES.map((name, i) => [name, comparable(results[i]!, engineMessage)])) as Outcomes
}

/**
 * The outcomes with no error line: for programs whose point is what they mean, not where an error
 * is placed (the line of an error made by a call or `new` spanning lines is the engine's; see the
 * package README's known differences).
 */
export function withoutLines(outcomes: Outcomes): Outcomes {
  return Object.fromEntries(
    Object.entries(outcomes).map(([name, outcome]) => {
      if (outcome.error === undefined) return [name, outcome]
      const { line: _line, ...error } = outcome.error
      return [name, { ...outcome, error }]
    }),
  ) as Outcomes
}

/** The first backend's outcome when all agree; otherwise throws with every backend's outcome. */
export function agreed(outcomes: Outcomes, what: string): Comparable {
  const [first, ...rest] = BACKEND_NAMES
  const reference = JSON.stringify(outcomes[first])
  const disagree = rest.filter((name) => JSON.stringify(outcomes[name]) !== reference)
  if (disagree.length > 0) {
    const lines = BACKEND_NAMES.map((name) => `  ${name}: ${clip(JSON.stringify(outcomes[name]))}`)
    throw new Error(`backends disagree on ${what}:\n${lines.join('\n')}`)
  }
  return outcomes[first]
}

function clip(text: string): string {
  return text.length <= 2000 ? text : `${text.slice(0, 1000)} …(${text.length - 2000} characters)… ${text.slice(-1000)}`
}
