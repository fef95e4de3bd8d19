import { SandboxError } from '../errors.js'
import type { JsonSchema } from '../options.js'

export type Validate = (value: unknown) => string | undefined

type AjvLike = {
  compile(schema: unknown): ((data: unknown) => boolean) & { errors?: unknown }
  errorsText(errors: unknown, options?: unknown): string
}

let draft07: Promise<AjvLike> | undefined
let draft2020: Promise<AjvLike> | undefined
const compiled = new WeakMap<object, Validate>()

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

/** Compiles a tool's inputSchema once per schema object; returns an error text or undefined. */
export async function validatorFor(toolName: string, schema: JsonSchema): Promise<Validate> {
  if (schema === true) return () => undefined
  if (schema === false) return () => 'no input is accepted'
  const cached = compiled.get(schema)
  if (cached !== undefined) return cached
  const ajv = await ajvFor(schema)
  let check: ((data: unknown) => boolean) & { errors?: unknown }
  try {
    check = ajv.compile(schema)
  } catch (error) {
    throw new SandboxError('INVALID_OPTIONS', `tool "${toolName}": inputSchema is not a valid JSON Schema: ${(error as Error).message}`)
  }
  const validate: Validate = (value) => {
    if (check(value)) return undefined
    return ajv.errorsText(check.errors, { dataVar: 'args' })
  }
  compiled.set(schema, validate)
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
