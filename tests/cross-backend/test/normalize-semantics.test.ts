/**
 * Normalization, end to end on every backend: a valid async function body run through
 * `sandbox.run` means what `new AsyncFunction(body)` means in Node — same value or thrown
 * message, same console output. The bodies come from core's own fuzz grammar.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { asyncBody } from '../../../packages/core/test/support/async-body-arbitrary.js'
import { closeSandboxes, openSandboxes, type Sandboxes } from './support/backends.js'
import { canonical } from './support/canonical.js'
import { fuzzSettings } from './support/fuzz-settings.js'
import { runRawBody } from './support/raw-body.js'
import { agreed, runEverywhere, withoutLines } from './support/run-everywhere.js'

let sandboxes: Sandboxes | undefined
beforeAll(() => {
  sandboxes = openSandboxes()
})
afterAll(() => closeSandboxes(sandboxes))

test("a valid async function body gives Node's value, error and logs on every backend", async () => {
  await fc.assert(
    fc.asyncProperty(asyncBody, async (body) => {
      const raw = await runRawBody(body)
      fc.pre(raw.compiled)
      if (!raw.compiled) return
      // Lines are compared by the corpus (differential.test.ts); a generated body may throw from a
      // `new Error(...)` spanning lines, whose line is the engine's.
      const outcome = agreed(withoutLines(await runEverywhere(sandboxes!, body)), body)
      expect(outcome.logs.map((entry) => entry.message)).toStrictEqual(raw.logs)
      if (raw.thrown !== undefined) expect(outcome.error).toMatchObject({ code: 'RUNTIME_ERROR', name: 'Error', message: raw.thrown })
      else expect(outcome.value).toStrictEqual(canonical(raw.value))
    }),
    fuzzSettings(20),
  )
})
