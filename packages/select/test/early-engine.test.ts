/**
 * `createSandbox()` starts the subprocess backend's engine child before it loads core, when the
 * options leave the choice to select and the launch-plan cache remembers isolated-vm (fresh
 * processes with a cache of their own, the built package).
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const FIXTURE = fileURLToPath(new URL('./fixtures/select-host.mjs', import.meta.url))
const run = promisify(execFile)

interface HostReport {
  value: unknown
  backend: string
  engineSpawns: ('early' | 'pool')[]
}

let cacheHome: string

/** A fresh process's `createSandbox(options)` and first run, with this file's launch-plan cache. */
async function firstContact(options?: object, env: Record<string, string> = {}): Promise<HostReport> {
  const args = options === undefined ? [FIXTURE] : [FIXTURE, JSON.stringify(options)]
  const { CORDON_BACKEND: _backend, CORDON_DISABLE: _disable, ...inherited } = process.env
  const { stdout } = await run(process.execPath, args, { env: { ...inherited, XDG_CACHE_HOME: cacheHome, ...env }, timeout: 60_000 })
  return JSON.parse(stdout) as HostReport
}

describe.runIf(process.platform === 'linux')('the engine child started before core loads', () => {
  beforeAll(async () => {
    cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'cordon-select-early-'))
    // The first process here probes (no early start: nothing is remembered yet) and remembers isolated-vm.
    expect(await firstContact()).toEqual({ value: 3, backend: 'subprocess', engineSpawns: ['pool'] })
  }, 90_000)

  afterAll(() => fs.rmSync(cacheHome, { recursive: true, force: true }))

  it.each([
    ['no options', undefined],
    ['run defaults only', { defaults: { timeoutMs: 20_000 } }],
    ['another backend’s options', { backendOptions: { ivm: { inspector: false } } }],
  ])('with %s, the sandbox’s first run is in the child started early, and no other is started', async (_, options) => {
    expect(await firstContact(options)).toEqual({ value: 3, backend: 'subprocess', engineSpawns: ['early'] })
  })

  it.each([
    ['options.backend', { backend: 'quickjs' }, {}],
    ['CORDON_BACKEND', undefined, { CORDON_BACKEND: 'quickjs' }],
    ['CORDON_DISABLE', undefined, { CORDON_DISABLE: 'subprocess' }],
  ])('when %s picks another backend, no engine child is started', async (_, options, env) => {
    expect(await firstContact(options, env)).toEqual({ value: 3, backend: 'quickjs', engineSpawns: [] })
  })

  it('with options of its own for the subprocess backend, its pool starts its child', async () => {
    const report = await firstContact({ backendOptions: { subprocess: { childMemoryMb: 512 } } })
    expect(report).toEqual({ value: 3, backend: 'subprocess', engineSpawns: ['pool'] })
  })
})
