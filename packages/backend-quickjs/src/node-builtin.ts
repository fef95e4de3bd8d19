/**
 * A Node built-in module; rejects where there is none (a browser), as its `import()` would.
 * `process.getBuiltinModule` (Node 20.16+, Bun, Deno) hands it over at once; an `import()` goes
 * through the module loader, a few hundred microseconds each on a fresh process's first run.
 */
export async function nodeBuiltin<T>(name: `node:${string}`): Promise<T> {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule
  const found = typeof get === 'function' ? (get(name) as T | undefined) : undefined
  return found ?? ((await import(/* @vite-ignore */ name)) as T)
}
