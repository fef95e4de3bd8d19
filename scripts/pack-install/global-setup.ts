// Packs every publishable package once (pnpm pack rewrites `workspace:` ranges), into a
// temporary folder outside the workspace that every consumer project of this run shares.
import { execSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'
import { pnpmCommand } from '../pnpm.mjs'
import { startIsolatedVmMirror } from './isolated-vm-mirror.js'
import { printMetrics, writeMetric } from './metrics.js'
import { readTarball } from './tarball.js'

export const repo = fileURLToPath(new URL('../..', import.meta.url))

declare module 'vitest' {
  export interface ProvidedContext {
    packInstall: { repo: string; root: string; tarballs: Record<string, string>; isolatedVmMirror?: string }
  }
}

/** Libraries live in packages/, and the published server bin in apps/ (the other apps are private). */
export function publishablePackages(): { name: string; dir: string }[] {
  return ['packages', 'apps']
    .flatMap((folder) => readdirSync(join(repo, folder)).map((dir) => join(repo, folder, dir)))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => !manifest.private)
    .map(({ dir, manifest }) => ({ name: manifest.name as string, dir }))
}

/** A publishable package's folder relative to the repo, e.g. `packages/core`. */
export function packageFolder(name: string): string {
  const found = publishablePackages().find((pkg) => pkg.name === name)
  if (found === undefined) throw new Error(`${name} is not a publishable package`)
  return relative(repo, found.dir)
}

export default async function setup(project: TestProject) {
  const root = mkdtempSync(join(tmpdir(), 'cordon-pack-install-'))
  const packDir = join(root, 'tarballs')
  mkdirSync(packDir)
  const packages = publishablePackages()
  const tarballs: Record<string, string> = {}
  for (const { name, dir } of packages) {
    const out = execSync(`${pnpmCommand()} pack --pack-destination "${packDir}"`, { cwd: dir, encoding: 'utf8' })
    const file = out.trim().split('\n').at(-1)!.trim()
    tarballs[name] = file
    const { unpackedBytes, files } = readTarball(file)
    writeMetric(root, `pack-${name}`, { package: name, packedBytes: statSync(file).size, unpackedBytes, files: files.length })
  }
  const mirror = await startIsolatedVmMirror(repo, root)
  project.provide('packInstall', { repo, root, tarballs, ...(mirror ? { isolatedVmMirror: mirror.url } : {}) })
  return async () => {
    await mirror?.close()
    printMetrics(root)
    if (process.env.CORDON_KEEP_PACK_INSTALL) console.log(`pack-install: kept ${root}`)
    else rmSync(root, { recursive: true, force: true })
  }
}
