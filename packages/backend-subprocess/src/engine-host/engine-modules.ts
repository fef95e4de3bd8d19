/**
 * Where an engine backend package and everything it loads are, found from the host: the child
 * runs under the permission model and may read only these folders (real paths, as the model
 * compares them), and it cannot search node_modules for itself.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { EngineName } from '../engine-child/engine-init.js'

export const ENGINE_PACKAGES: Readonly<Record<EngineName, string>> = {
  'isolated-vm': '@cordon/backend-ivm',
  quickjs: '@cordon/backend-quickjs',
}

export type EngineModules =
  { ok: true; moduleUrl: string; coreUrl: string; readable: string[]; addons: string[] } | { ok: false; reason: string }

interface PackageJson {
  name?: string
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}

/** The engine package's entry and the real folders of it and its runtime dependencies. */
export function findEngineModules(engine: EngineName): EngineModules {
  const name = ENGINE_PACKAGES[engine]
  const require = createRequire(import.meta.url)
  let entry: string
  try {
    entry = fs.realpathSync(require.resolve(name))
  } catch {
    return { ok: false, reason: `${name} is not installed next to @cordon/backend-subprocess (npm install ${name})` }
  }
  const root = packageRoot(entry, name)
  if (root === undefined) return { ok: false, reason: `${name} has no package.json above ${entry}` }
  let core: string
  try {
    core = fs.realpathSync(createRequire(path.join(root, 'package.json')).resolve('@cordon/core/backend'))
  } catch {
    return { ok: false, reason: `${name} cannot find its @cordon/core (reinstall it)` }
  }
  const readable = new Set<string>()
  collect(root, readable)
  const addons = engine === 'isolated-vm' ? addonEntries(root) : []
  // node-gyp-build (isolated-vm 7) tells musl from glibc by whether this file exists; on Node 26
  // a refused look is an error, not a no.
  if (engine === 'isolated-vm') readable.add('/etc/alpine-release')
  return { ok: true, moduleUrl: pathToFileURL(entry).href, coreUrl: pathToFileURL(core).href, readable: [...readable], addons }
}

/**
 * The entry files of the isolated-vm builds the ivm package lists as optional dependencies, in
 * its order (one is built for the children's Node), as real paths.
 */
function addonEntries(root: string): string[] {
  const from = createRequire(path.join(root, 'package.json'))
  const entries: string[] = []
  for (const name of Object.keys(readManifest(root)?.optionalDependencies ?? {})) {
    try {
      entries.push(fs.realpathSync(from.resolve(name)))
    } catch {
      // Not installed here (another Node's build, or skipped by the package manager).
    }
  }
  return entries
}

/**
 * The child loads only `@cordon/core/backend` of core, a file with no imports outside core: core's
 * own dependencies (the parser, the schema compiler, undici…) are the host's, never read there.
 * Not walking them keeps them out of the child's reach and costs a fresh process ~60 fewer manifest
 * reads before its first engine child can start.
 */
const LEAF_PACKAGES = new Set(['@cordon/core'])
/**
 * Listed as dependencies but used only while installing (isolated-vm 5 downloads its binary with
 * prebuild-install): nothing of them runs in the child, and they bring ~80 folders.
 */
const INSTALL_ONLY_PACKAGES = new Set(['prebuild-install'])

/** Adds `dir` and, recursively, the packages it depends on at run time. */
function collect(dir: string, readable: Set<string>, name?: string): void {
  if (readable.has(dir)) return
  readable.add(dir)
  if (name !== undefined && LEAF_PACKAGES.has(name)) return
  const manifest = readManifest(dir)
  // Native addons' dependencies too: isolated-vm 7 finds its binary with node-gyp-build at run time.
  if (manifest === undefined) return
  for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
    if (INSTALL_ONLY_PACKAGES.has(dependency)) continue
    const link = linkPath(dir, dependency)
    if (link === undefined) continue
    let found: string
    try {
      // One realpath(3) call, not a JavaScript walk of every folder of a deep pnpm path.
      found = fs.realpathSync.native(link)
    } catch {
      continue // A dangling link: not installed.
    }
    // Node's resolver reads the link it finds (pnpm's node_modules/<name> symlink) before the real folder.
    if (link !== found) readable.add(link)
    collect(found, readable, dependency)
  }
}

/** Where Node's resolver, walking up from `dir`, finds `node_modules/<name>` (a package's folder, or pnpm's link to it). */
function linkPath(dir: string, name: string): string | undefined {
  for (let at = dir; at !== path.dirname(at); at = path.dirname(at)) {
    const candidate = path.join(at, 'node_modules', name)
    // Not here: one folder up (without an exception per miss).
    if (fs.lstatSync(candidate, { throwIfNoEntry: false }) !== undefined) return candidate
  }
  return undefined
}

function packageRoot(file: string, name: string): string | undefined {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (readManifest(dir)?.name === name) return dir
  }
  return undefined
}

function readManifest(dir: string): PackageJson | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageJson
  } catch {
    return undefined
  }
}
