/**
 * `cordon run` starts the engine child before it loads commander and the commands, when no flag
 * could choose another backend (src/engine-start.ts). Each run here is a fresh CLI process with a
 * launch-plan cache of this file's own, watched by a preload that notes the engine children spawned.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import './build-cli.js'
import { cordon } from './helpers.js'

const WATCH = fileURLToPath(new URL('./fixtures/engine-spawn-watch.cjs', import.meta.url))

let cacheHome: string

/** `cordon …args`, its stdout, and the engine children it spawned. */
async function watched(args: string[], env: Record<string, string> = {}) {
  const run = await cordon(args, { env: { XDG_CACHE_HOME: cacheHome, NODE_OPTIONS: `--require ${WATCH}`, ...env } })
  const line = run.stderr.split('\n').find((text) => text.startsWith('ENGINE-SPAWNS '))
  expect(line, run.stderr).toBeDefined()
  return {
    code: run.code,
    stdout: run.stdout.trim(),
    spawns: JSON.parse(line!.slice('ENGINE-SPAWNS '.length)) as { commanderLoaded: boolean }[],
  }
}

describe.runIf(process.platform === 'linux')('the engine child of a plain `cordon run`', () => {
  beforeAll(async () => {
    cacheHome = mkdtempSync(path.join(tmpdir(), 'cordon-cli-early-'))
    // The first process here probes and remembers isolated-vm; nothing is started early yet.
    const first = await watched(['run', '-e', '1 + 2'])
    expect(first).toEqual({ code: 0, stdout: '3', spawns: [{ commanderLoaded: true }] })
  }, 60_000)

  afterAll(() => rmSync(cacheHome, { recursive: true, force: true }))

  it('starts before commander loads, and is the only one', async () => {
    expect(await watched(['run', '-e', '1 + 2', '--timeout', '5000'])).toEqual({
      code: 0,
      stdout: '3',
      spawns: [{ commanderLoaded: false }],
    })
  })

  it.each([
    [['run', '-e', '1 + 2', '--backend', 'quickjs'], {}],
    [['run', '-bquickjs', '-e', '1 + 2'], {}],
    [['run', '-e', '1 + 2', '--prefer', 'quickjs'], {}],
    [['run', '-e', '1 + 2'], { CORDON_BACKEND: 'quickjs' }],
  ])('is not started for %j %j, which choose QuickJS', async (args, env) => {
    expect(await watched(args, env)).toEqual({ code: 0, stdout: '3', spawns: [] })
  })

  it('waits for commander when a flag needs an inspector', async () => {
    const run = await watched(['run', '-e', '1 + 2', '--cpu-prof-name', path.join(cacheHome, 'p.cpuprofile')])
    expect(run.code).toBe(0)
    expect(run.spawns.filter((spawn) => !spawn.commanderLoaded)).toEqual([])
  })
})
