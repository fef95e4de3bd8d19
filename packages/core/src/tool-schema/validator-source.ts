/**
 * A standalone validator's source (compile-schema.ts) made into a function on this thread. The
 * source is a CommonJS module Ajv generated from the host's own schema; it may require Ajv's small
 * runtime helpers, which are loaded here by name. Ajv's compiler never is.
 */

/** What Ajv's standalone code exports: true when valid, else false with `errors` set. */
export type CheckInput = ((data: unknown) => boolean) & { errors?: readonly SchemaError[] | null }

interface SchemaError {
  instancePath: string
  message?: string
}

/** Every module standalone code of Ajv 8 requires (JTD's helpers aside, unused here). */
const RUNTIME_HELPERS: Readonly<Record<string, () => Promise<{ default?: unknown }>>> = {
  'ajv/dist/runtime/equal': () => import('ajv/dist/runtime/equal.js'),
  'ajv/dist/runtime/ucs2length': () => import('ajv/dist/runtime/ucs2length.js'),
  'ajv/dist/runtime/uri': () => import('ajv/dist/runtime/uri.js'),
  'ajv/dist/runtime/validation_error': () => import('ajv/dist/runtime/validation_error.js'),
}
const helpers = new Map<string, Promise<unknown>>()

/**
 * The helper's CommonJS exports (the code reads `.default` of them). Node hands an imported
 * CommonJS module's exports as `default`; a bundler may hand the exported `default` itself.
 */
function commonJsExports(namespace: { default?: unknown }): unknown {
  const exported = namespace.default
  return exported !== null && typeof exported === 'object' && 'default' in exported ? exported : { default: exported }
}

export async function validatorFromSource(source: string): Promise<CheckInput> {
  const needed = new Map<string, unknown>()
  for (const [, name] of source.matchAll(/require\("([^"]+)"\)/g)) {
    const load = RUNTIME_HELPERS[name!]
    if (load === undefined) throw new Error(`the compiled schema requires ${name}, which is not one of Ajv's runtime helpers`)
    let loading = helpers.get(name!)
    if (loading === undefined) helpers.set(name!, (loading = load().then(commonJsExports)))
    needed.set(name!, await loading)
  }
  const module = { exports: {} as unknown }
  // Ajv's output for the host's own schema, evaluated as Ajv itself evaluates what it compiles.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const evaluate = new Function('module', 'exports', 'require', source) as (m: object, e: unknown, r: (name: string) => unknown) => void
  evaluate(module, module.exports, (name) => needed.get(name))
  return module.exports as CheckInput
}

/** Ajv's summary of why input was refused, about `args` (e.g. "args/a must be number"). */
export function describeErrors(errors: readonly SchemaError[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'No errors'
  return errors.map((error) => `args${error.instancePath} ${error.message ?? 'is invalid'}`).join(', ')
}
