/**
 * What the launch-plan cache key records of the other cordon packages (package-versions.ts): an
 * upgraded, removed or newly installed core or engine package changes it, so an entry that
 * remembers an engine checked with the old ones is not used (launch-plan-cache.test.ts covers
 * how a changed key is probed again).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { installedVersions, KEYED_PACKAGES } from '../src/package-versions.js'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cordon-package-versions-'))
const from = pathToFileURL(path.join(root, 'app', 'index.js'))
fs.mkdirSync(path.join(root, 'app'))

function install(name: string, version: string): void {
  const dir = path.join(root, 'node_modules', name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version, exports: { './package.json': './package.json' } }))
}

afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe('installed cordon packages, for the launch-plan cache key', () => {
  it('names core and the engine package an entry may remember', () => {
    expect(KEYED_PACKAGES).toEqual(['@cordon/core', '@cordon/backend-ivm'])
  })

  // Names no NODE_PATH leads to (pnpm's bin shims set one that finds the workspace's packages).
  const names = ['@cordon-test/core', '@cordon-test/engine']

  it('changes when one is installed, upgraded or removed', () => {
    install('@cordon-test/core', '1.0.0')
    const before = JSON.stringify(installedVersions(from, names))
    expect(installedVersions(from, names)).toEqual([
      ['@cordon-test/core', fs.realpathSync(path.join(root, 'node_modules/@cordon-test/core/package.json')), '1.0.0'],
      ['@cordon-test/engine', null, null],
    ])
    install('@cordon-test/engine', '1.0.0')
    const installed = JSON.stringify(installedVersions(from, names))
    expect(installed).not.toBe(before)
    install('@cordon-test/engine', '1.1.0')
    const upgraded = JSON.stringify(installedVersions(from, names))
    expect(upgraded).not.toBe(installed)
    fs.rmSync(path.join(root, 'node_modules/@cordon-test/engine'), { recursive: true })
    expect(JSON.stringify(installedVersions(from, names))).toBe(before)
  })

  it('reads this workspace’s packages from the package itself', () => {
    for (const [name, file, version] of installedVersions()) {
      expect(file, name).toMatch(/package\.json$/)
      expect(version, name).toEqual(expect.any(String))
    }
  })
})
