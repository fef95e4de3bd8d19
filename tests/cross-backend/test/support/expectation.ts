/** Checks an agreed outcome against a corpus program's stated expectation. */
import { expect } from 'vitest'
import type { Expectation } from '../corpus/program.js'
import { canonical } from './canonical.js'
import type { Comparable } from './comparable.js'

export function checkExpectation(outcome: Comparable, expected: Expectation): void {
  if (expected.error !== undefined) {
    expect(outcome.ok, 'the program should fail').toBe(false)
    expect(outcome.error).toMatchObject(expected.error)
  } else if ('value' in expected) {
    expect(outcome.error, 'the program should succeed').toBeUndefined()
    expect(outcome.value).toStrictEqual(canonical(expected.value))
  }
  if (expected.logs !== undefined) expect(outcome.logs.map((entry) => entry.message)).toStrictEqual(expected.logs)
  if (expected.logLevels !== undefined) expect(outcome.logs.map((entry) => entry.level)).toStrictEqual(expected.logLevels)
}
