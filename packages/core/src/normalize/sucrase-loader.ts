/**
 * sucrase, loaded the first time TypeScript is needed. Kept apart from the parser (acorn) so
 * that asking "is it loaded here?" loads neither.
 */
type Sucrase = typeof import('sucrase')

let loading: Promise<Sucrase> | undefined
let loaded = false

/** What the steps return when the code needs sucrase and it may not be loaded on this thread. */
export const NEEDS_SUCRASE = Symbol('needs sucrase')

/** Whether sucrase is loaded on this thread already (then using it costs no load). */
export function sucraseLoaded(): boolean {
  return loaded
}

/** sucrase, imported the first time it is needed (type stripping, module compilation). */
export function loadSucrase(): Promise<Sucrase> {
  if (loading === undefined) {
    loading = import('sucrase')
    loading.then(() => (loaded = true)).catch(() => undefined)
    // A failed load (missing dependency) must not be cached forever.
    loading.catch(() => {
      loading = undefined
    })
  }
  return loading
}
