/**
 * What an engine child may read (`--allow-fs-read`): the engine package and what it loads at run
 * time, and of @cordon/core its own folder only — the child loads `@cordon/core/backend`, which
 * imports nothing outside core. The engine children's conformance runs prove the list suffices.
 */
import { describe, expect, it } from 'vitest'
import { findEngineModules } from '../src/engine-host/engine-modules.js'

/** Host-only packages: core's parser, schema compiler, fetch and TypeScript stripper, and install-time tools. */
const NEVER_READ = /[\\/](acorn|ajv|ipaddr\.js|sucrase|undici|ws|prebuild-install)([\\/@]|$)/

describe('engine modules', () => {
  it.each(['isolated-vm', 'quickjs'] as const)('%s: the child may read its engine and core, not core’s dependencies', (engine) => {
    const found = findEngineModules(engine)
    if (!found.ok) throw new Error(found.reason)
    expect(found.readable.some((dir) => /[\\/]core$/.test(dir))).toBe(true)
    expect(found.readable.filter((dir) => NEVER_READ.test(dir))).toEqual([])
    if (engine === 'isolated-vm') expect(found.addons.length).toBeGreaterThan(0)
    else expect(found.readable.some((dir) => /quickjs-wasi$/.test(dir))).toBe(true)
  })
})
