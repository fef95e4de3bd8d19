/**
 * TypeScript → JavaScript with sucrase, loaded lazily the first time TypeScript is needed.
 *
 * sucrase only removes types (it does not type-check) and keeps every line where it was, which
 * keeps line numbers right; columns on a line shrink when annotations are removed. Notes:
 * - `enum` / `const enum` become plain JavaScript objects (`var E; (function (E) {…})(E || (E = {}))`,
 *   spread over the enum's original lines); `const enum` is not inlined.
 * - constructor parameter properties become `this.x = x` assignments.
 * - `import type` and `type` specifiers are dropped; every other import is kept
 *   (`keepUnusedImports`), so it still reaches the import check — otherwise an unused
 *   `import x from 'y'` would silently disappear.
 * - non-`declare` namespaces are NOT supported by sucrase: it drops them as if they were types.
 * - `disableESTransforms` keeps modern JavaScript (optional chaining, class fields…) untouched.
 */
import type { ParseFailure } from './parse.js'
import { toFailure } from './parse.js'

import { loadSucrase } from './sucrase-loader.js'

export type StripResult = { ok: true; code: string } | { ok: false; error: ParseFailure }

/**
 * Strips TypeScript syntax. With `jsx`, TSX is accepted and JSX is left in place (not compiled):
 * only used to locate JSX for a clear error, since JSX cannot run in the sandbox.
 */
export async function stripTypes(code: string, jsx = false): Promise<StripResult> {
  const sucrase = await loadSucrase()
  try {
    const result = sucrase.transform(code, {
      transforms: jsx ? ['typescript', 'jsx'] : ['typescript'],
      jsxRuntime: 'preserve',
      disableESTransforms: true,
      keepUnusedImports: true,
    })
    return { ok: true, code: result.code }
  } catch (err) {
    return { ok: false, error: toFailure(err) }
  }
}

/** Whether plain JavaScript + JSX (no TypeScript) accepts the code. */
export async function parsesAsJsx(code: string): Promise<boolean> {
  const sucrase = await loadSucrase()
  try {
    sucrase.transform(code, { transforms: ['jsx'], jsxRuntime: 'preserve', disableESTransforms: true })
    return true
  } catch {
    return false
  }
}
