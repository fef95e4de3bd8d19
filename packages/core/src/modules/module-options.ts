import { SandboxError } from '../errors.js'
import { describeOptionValue } from '../limits.js'

/** A module's ESM source, or a host function that returns it (called once per run, before the run). */
export type ModuleSource = string | (() => string | Promise<string>)

/**
 * The modules a run's program may import, keyed by the exact specifier the guest writes
 * (`'lodash-es'`, `'./helpers.js'`). Keys ending in `.ts`, `.mts` or `.cts` are TypeScript.
 */
export type ModuleMap = Record<string, ModuleSource>

/** Line terminators: a name with one would break the registry's line bookkeeping. */
const LINE_BREAK = /[\n\r\u2028\u2029]/

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', message)
}

/** Throws INVALID_OPTIONS unless `value` is a plain object of specifier → string or function. */
export function checkModules(value: unknown, source: string): ModuleMap | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalid(`${source}: modules must be an object of specifier → source or loader function, got ${describeOptionValue(value)}`)
  }
  const proto = Object.getPrototypeOf(value) as unknown
  if (proto !== Object.prototype && proto !== null) invalid(`${source}: modules must be a plain object`)
  for (const key of Object.keys(value)) {
    if (key === '' || key.length > 1000 || LINE_BREAK.test(key)) {
      invalid(`${source}: modules: ${JSON.stringify(key)} is not a usable specifier (non-empty, one line, at most 1000 characters)`)
    }
    const entry = (value as Record<string, unknown>)[key]
    if (typeof entry !== 'string' && typeof entry !== 'function') {
      invalid(
        `${source}: modules: "${key}" must be the module's source (a string) or a function that returns it, got ${describeOptionValue(entry)}`,
      )
    }
  }
  return value as ModuleMap
}
