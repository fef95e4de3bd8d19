import { SandboxError } from '../errors.js'
import type { JsonSchema } from '../options.js'

export type Validate = (value: unknown) => string | undefined

type AjvLike = {
  compile(schema: unknown): ((data: unknown) => boolean) & { errors?: unknown }
  errorsText(errors: unknown, options?: unknown): string
  removeSchema(): unknown
}

let draft07: Promise<AjvLike> | undefined
let draft2020: Promise<AjvLike> | undefined
const compiled = new WeakMap<object, Validate>()
/**
 * The same, by the schema's JSON text, for hosts that build their tools (schemas included) for
 * every run: each distinct schema is compiled once (~1.5 ms each on a slow VM), not once per run.
 * Most recently used last; bounded.
 */
const compiledByText = new Map<string, Validate>()
const MAX_TEXTS = 512

function schemaText(schema: object): string | undefined {
  try {
    return JSON.stringify(schema)
  } catch {
    return undefined // not JSON (a cycle): compiled by identity only
  }
}

/** Ajv is loaded on first use: runs without schemas never pay for it. */
async function ajvFor(schema: Record<string, unknown>): Promise<AjvLike> {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : ''
  const legacy = /draft-0[4-7]/.test(dialect)
  if (legacy) {
    draft07 ??= import('ajv').then((m) => new (m.default as unknown as new (o: object) => AjvLike)({ strict: false, allErrors: false }))
    return draft07
  }
  draft2020 ??= import('ajv/dist/2020.js').then(
    (m) => new (m.default as unknown as new (o: object) => AjvLike)({ strict: false, allErrors: false }),
  )
  return draft2020
}

/** Compiles a tool's inputSchema once per schema (object, or JSON text); returns an error text or undefined. */
export async function validatorFor(toolName: string, schema: JsonSchema): Promise<Validate> {
  if (schema === true) return () => undefined
  if (schema === false) return () => 'no input is accepted'
  const cached = compiled.get(schema)
  if (cached !== undefined) return cached
  const text = schemaText(schema)
  const same = text === undefined ? undefined : compiledByText.get(text)
  if (same !== undefined && text !== undefined) {
    compiledByText.delete(text)
    compiledByText.set(text, same)
    compiled.set(schema, same)
    return same
  }
  const ajv = await ajvFor(schema)
  let check: ((data: unknown) => boolean) & { errors?: unknown }
  try {
    check = ajv.compile(schema)
  } catch (error) {
    throw new SandboxError('INVALID_OPTIONS', `tool "${toolName}": inputSchema is not a valid JSON Schema: ${(error as Error).message}`)
  } finally {
    // Each schema stands alone: ajv keeps none of them (its meta-schemas stay). Else ajv refuses
    // a schema whose $id it has seen (the same tool built again, two tools sharing one), and a
    // host that builds its schemas per run grows ajv's cache by one compiled schema per run.
    ajv.removeSchema()
  }
  const validate: Validate = (value) => {
    if (check(value)) return undefined
    return ajv.errorsText(check.errors, { dataVar: 'args' })
  }
  compiled.set(schema, validate)
  if (text !== undefined) {
    compiledByText.set(text, validate)
    if (compiledByText.size > MAX_TEXTS) compiledByText.delete(compiledByText.keys().next().value as string)
  }
  return validate
}

/** Compiles every schema of a tool set before the run starts, so validation is synchronous. */
export async function compileValidators(tools: ReadonlyMap<string, { inputSchema?: JsonSchema }>): Promise<Map<string, Validate>> {
  const out = new Map<string, Validate>()
  for (const [name, tool] of tools) {
    if (tool.inputSchema !== undefined) out.set(name, await validatorFor(name, tool.inputSchema))
  }
  return out
}
