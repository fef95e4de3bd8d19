/**
 * Node module hooks (for `module.register`) that resolve `cloudflare:workers` to this package's
 * stand-in; every other specifier goes on to the next hook. Loaded by `./register`, in Node's
 * hooks thread.
 */
export const SHIM_URL = new URL('./cloudflare-workers.js', import.meta.url).href

interface Resolved {
  url: string
  shortCircuit?: boolean
}

export function resolve(
  specifier: string,
  context: unknown,
  nextResolve: (specifier: string, context: unknown) => Resolved | Promise<Resolved>,
) {
  if (specifier === 'cloudflare:workers') return { url: SHIM_URL, shortCircuit: true }
  return nextResolve(specifier, context)
}
