/** Finding the binaries a child is launched with. */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const SYSTEM_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin']

/** An executable called `name` on PATH (or in the usual system folders), or undefined. */
export function findExecutable(name: string, extraDirs: readonly string[] = SYSTEM_DIRS): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).concat(extraDirs)
  const names = process.platform === 'win32' ? [`${name}.exe`, `${name}.cmd`, name] : [name]
  for (const dir of dirs) {
    for (const candidate of names) {
      const full = path.join(dir, candidate)
      try {
        // stat rather than access(X_OK): Deno asks for an extra permission for the latter.
        const stat = fs.statSync(full)
        if (stat.isFile() && (process.platform === 'win32' || (stat.mode & 0o111) !== 0)) return full
      } catch {
        // Not here: keep looking.
      }
    }
  }
  return undefined
}

/**
 * The Node binary for children: the option, else the running Node. Bun and Deno report a
 * Node version too, so they are recognised by their own globals; there the default is the
 * first `node` on PATH. Whether the binary really works is decided by the probe, not here.
 */
export function chooseNodeBinary(option: string | undefined): { path: string } | { reason: string } {
  if (option !== undefined) return { path: option }
  const versions = process.versions as Record<string, string | undefined>
  const foreign = versions.bun !== undefined ? 'Bun' : 'Deno' in globalThis ? 'Deno' : undefined
  if (foreign === undefined) return { path: process.execPath }
  const node = findExecutable('node', [])
  if (node !== undefined) return { path: node }
  return {
    reason: `the host runs on ${foreign}, and the subprocess backend needs a Node.js (>= 20) binary for its children, but none is on PATH; install Node.js or pass createSubprocessBackend({ nodePath })`,
  }
}

/**
 * A child entry (dist/child.js, or dist/engine-child.js for engine children) as a real path (the
 * permission model compares real paths). From the built package it sits next to this module;
 * from the sources (tests), in ../dist.
 */
export function findChildEntry(file = 'child.js'): { path: string } | { reason: string } {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const candidates = [path.join(here, file), path.join(here, '..', 'dist', file)]
  for (const candidate of candidates) {
    try {
      return { path: fs.realpathSync(candidate) }
    } catch {
      // Try the next place.
    }
  }
  return {
    reason: `the child entry is missing (looked for ${candidates.join(', ')}); reinstall @cordon/backend-subprocess or run its build`,
  }
}

/** The host's uid, or undefined where it cannot be known (Windows, Deno without --allow-sys). */
export function hostUid(): number | undefined {
  try {
    return process.getuid?.()
  } catch {
    return undefined
  }
}
