import type { RunError } from '../result.js'
import { utf8Length } from '../wire.js'
import type { ModuleMap } from './module-options.js'

/** Each module's source text, by specifier, with loaders called. */
export type ModuleSources = ReadonlyMap<string, string>

export type LoadedModules = { ok: true; sources: ModuleSources } | { ok: false; error: RunError }

/**
 * Calls every loader of the map once (together) and collects the sources. A loader that throws,
 * rejects or returns something other than a string ends the run with a RUNTIME_ERROR naming
 * the module: the program could not have imported it. `signal` stops the wait (the run ended).
 */
export async function loadModules(map: ModuleMap, signal: AbortSignal): Promise<LoadedModules> {
  const names = Object.keys(map)
  const all = Promise.all(
    names.map(async (name): Promise<string | RunError> => {
      const entry = map[name]
      if (typeof entry === 'string') return entry
      try {
        const text: unknown = await entry!()
        if (typeof text === 'string') return text
        return loaderError(name, `it returned ${text === null ? 'null' : typeof text}, not the module's source`)
      } catch (error) {
        return loaderError(name, `it failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    }),
  )
  // A loader that never settles must not outlive the run's deadline.
  const settled = await Promise.race([all, whenAborted(signal)])
  if (settled === undefined) return { ok: false, error: { code: 'ABORTED', message: 'the run ended while module loaders ran' } }
  const sources = new Map<string, string>()
  for (let i = 0; i < names.length; i++) {
    const text = settled[i]!
    if (typeof text !== 'string') return { ok: false, error: text }
    sources.set(names[i]!, text)
  }
  return { ok: true, sources }
}

function loaderError(name: string, what: string): RunError {
  return { code: 'RUNTIME_ERROR', name: 'Error', message: `module "${name}" could not be loaded: its loader ${what}` }
}

/** The modules' total size is held to the code's own limit, maxCodeBytes. */
export function modulesTooLarge(sources: ModuleSources, maxCodeBytes: number): RunError | undefined {
  let total = 0
  for (const text of sources.values()) total += utf8Length(text)
  if (total <= maxCodeBytes) return undefined
  return {
    code: 'CODE_LIMIT',
    message: `the modules are larger than maxCodeBytes together (${total} > ${maxCodeBytes} bytes)`,
    limit: { name: 'maxCodeBytes', value: maxCodeBytes },
  }
}

function whenAborted(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(undefined)
    else signal.addEventListener('abort', () => resolve(undefined), { once: true })
  })
}
