import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { UNDICI_STEPS } from '../src/fetch/undici-steps.js'

const coreDir = fileURLToPath(new URL('..', import.meta.url))

/**
 * In a fresh Node process (nothing of undici loaded yet): requires each step in order and lists
 * the undici files each one loaded, then what the three entries still loaded after all steps.
 */
function loadInSteps(): { perStep: string[][]; afterSteps: string[] } {
  const script = `
    const { createRequire } = require('node:module')
    const req = createRequire(${JSON.stringify(`${coreDir}/package.json`)})
    const undiciFiles = () => Object.keys(require.cache).filter((file) => /[\\\\/]undici[\\\\/]/.test(file))
    const perStep = []
    for (const step of ${JSON.stringify(UNDICI_STEPS)}) {
      const before = new Set(undiciFiles())
      req(step)
      perStep.push(undiciFiles().filter((file) => !before.has(file)))
    }
    const before = new Set(undiciFiles())
    req('undici/lib/dispatcher/agent.js'); req('undici/lib/core/connect.js'); req('undici/lib/api/api-request.js')
    process.stdout.write(JSON.stringify({ perStep, afterSteps: undiciFiles().filter((file) => !before.has(file)) }))
  `
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  if (child.status !== 0) throw new Error(child.stderr)
  return JSON.parse(child.stdout) as { perStep: string[][]; afterSteps: string[] }
}

describe("undici's files, a turn each", () => {
  // When this fails after an undici upgrade, list the files the entries load, in the order they
  // finish loading (each after what it requires), into UNDICI_STEPS.
  it('each step loads its own file only, and the entries find every file loaded', () => {
    const { perStep, afterSteps } = loadInSteps()
    UNDICI_STEPS.forEach((step, index) => {
      const loaded = perStep[index]!.map((file) => file.replace(/\\/g, '/'))
      if (step.startsWith('node:')) expect(loaded, step).toEqual([])
      else expect(loaded, step).toEqual([expect.stringMatching(new RegExp(`/${step.replace(/\./g, '\\.')}$`))])
    })
    expect(afterSteps).toEqual([])
  })
})
