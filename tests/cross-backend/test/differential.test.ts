/**
 * The differential test: every corpus program runs on every backend, and the results must be
 * the same (value, logs, error code/name/message/line; see support/comparable.ts for the two
 * documented normalizations), and equal to the program's expectation where it states one.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CORPUS } from './corpus/index.js'
import { closeSandboxes, openSandboxes, type Sandboxes } from './support/backends.js'
import { checkExpectation } from './support/expectation.js'
import { agreed, runEverywhere } from './support/run-everywhere.js'

let sandboxes: Sandboxes | undefined
beforeAll(() => {
  sandboxes = openSandboxes()
})
afterAll(() => closeSandboxes(sandboxes))

test('the corpus has at least 150 programs with unique names', () => {
  const names = CORPUS.flatMap(({ programs }) => programs.map((p) => `${p.name}`))
  expect(names.length).toBeGreaterThanOrEqual(150)
  expect(new Set(names).size).toBe(names.length)
})

for (const { theme, programs } of CORPUS) {
  describe(theme, () => {
    for (const program of programs) {
      test(program.name, async () => {
        const options = { ...(program.tools && { tools: program.tools }), ...(program.globals && { globals: program.globals }) }
        const outcome = agreed(await runEverywhere(sandboxes!, program.code, options, program.engineMessage), program.name)
        if (program.expect !== undefined) checkExpectation(outcome, program.expect)
      })
    }
  })
}
