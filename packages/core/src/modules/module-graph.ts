/**
 * Compiles a run's modules and checks, before anything runs, the part of the module graph the
 * program imports statically: as with ES modules, a missing module or a syntax error anywhere in
 * it fails the program before any of its code runs. Modules only reachable by `import()` are
 * checked when imported: their failure rejects that import.
 */
import type { RunError } from '../result.js'
import type { NormalizedProgram } from '../normalize/index.js'
import { askParseThread, PARSE_HERE_MAX_CHARS } from '../parse-thread/parse-thread.js'
import { sucraseLoaded } from '../normalize/sucrase-loader.js'
import type { CompileResult } from './compile-module.js'
import type { ModuleSources } from './load-modules.js'

/**
 * Compiled modules of recent runs, by name and source: hosts pass the same map run after run.
 * Bounded by total source size (the key and the compiled body are about twice that).
 */
const cache = new Map<string, CompileResult>()
const MAX_CACHED_CHARS = 4 * 1024 * 1024
let cachedChars = 0

async function compileCached(name: string, source: string): Promise<CompileResult> {
  const key = name + '\n' + source
  const hit = cache.get(key)
  if (hit !== undefined) {
    // Most recently used goes last, so the oldest is the first to go.
    cache.delete(key)
    cache.set(key, hit)
    return hit
  }
  const result = await compileAnywhere(name, source)
  // Two runs may compile the same module at once: count it once.
  if (!cache.has(key) && key.length <= MAX_CACHED_CHARS / 4) {
    cache.set(key, result)
    cachedChars += key.length
    while (cachedChars > MAX_CACHED_CHARS) {
      const oldest = cache.keys().next().value as string
      cache.delete(oldest)
      cachedChars -= oldest.length
    }
  }
  return result
}

/** As programs (normalize/index.ts): large ones, and any before sucrase is loaded here, on the parse thread. */
async function compileAnywhere(name: string, source: string): Promise<CompileResult> {
  // The compiler and its parser load with the first module (normalize/index.ts says why).
  if (source.length <= PARSE_HERE_MAX_CHARS && sucraseLoaded()) return (await import('./compile-module.js')).compileModule(name, source)
  const elsewhere = await askParseThread({ kind: 'module', name, source })
  if (elsewhere === undefined) return (await import('./compile-module.js')).compileModule(name, source)
  if ('outOfMemory' in elsewhere)
    return { ok: false, message: 'the module is too large to compile: the parser ran out of memory', line: 1, column: 1 }
  return elsewhere.answer as CompileResult
}

export type CompiledModules = ReadonlyMap<string, CompileResult>

export async function compileModules(sources: ModuleSources): Promise<CompiledModules> {
  const compiled = new Map<string, CompileResult>()
  for (const [name, source] of sources) compiled.set(name, await compileCached(name, source))
  return compiled
}

/** The error that stops the program before it runs, if its static imports cannot all be linked. */
export function checkStaticGraph(program: NormalizedProgram, modules: CompiledModules): RunError | undefined {
  for (const imported of program.imports ?? []) {
    if (!modules.has(imported.specifier)) {
      return { ...notFound(imported.specifier, 'the program'), line: imported.line, column: imported.column }
    }
  }
  const seen = new Set<string>()
  const queue = (program.imports ?? []).map((i) => i.specifier)
  while (queue.length > 0) {
    const name = queue.shift()!
    if (seen.has(name)) continue
    seen.add(name)
    const result = modules.get(name)!
    if (!result.ok) return { code: 'SYNTAX_ERROR', name: 'SyntaxError', message: syntaxMessage(name, result) }
    for (const { specifier, line } of result.module.imports) {
      if (!modules.has(specifier)) return notFound(specifier, 'module "' + name + '" (line ' + line + ')')
      queue.push(specifier)
    }
  }
  return undefined
}

export function syntaxMessage(name: string, failed: Extract<CompileResult, { ok: false }>): string {
  return 'module "' + name + '" line ' + failed.line + ':' + failed.column + ': ' + failed.message
}

function notFound(specifier: string, importer: string): RunError {
  return {
    code: 'RUNTIME_ERROR',
    name: 'Error',
    message: 'Cannot find module "' + specifier + '" imported by ' + importer + ': it is not one of the modules the host gave this run',
  }
}
