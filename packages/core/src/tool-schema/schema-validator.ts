/**
 * Tool input validators, one per inputSchema (by object, and by JSON text). Compiled on the parse
 * thread (compile-schema.ts), so that loading Ajv never holds the host's event loop; made into
 * functions here (validator-source.ts), where validation runs synchronously at each tool call.
 */
import { SandboxError } from '../errors.js'
import type { JsonSchema } from '../options.js'
import { askParseThread } from '../parse-thread/parse-thread.js'
import { compileSchemaSource, type SchemaSource } from './compile-schema.js'
import { describeErrors, validatorFromSource } from './validator-source.js'

export type Validate = (value: unknown) => string | undefined

type Made = { validate: Validate } | { invalid: string }

const compiled = new WeakMap<object, Validate>()
/**
 * The same, by the schema's JSON text, being made or made, for hosts that build their tools
 * (schemas included) for every run, and tools that share a schema: each distinct schema is
 * compiled once (~1.5 ms each on a slow VM), not once per run. Most recently used last; bounded.
 */
const byText = new Map<string, Promise<Made>>()
const MAX_TEXTS = 512

function schemaText(schema: object): string | undefined {
  try {
    return JSON.stringify(schema)
  } catch {
    return undefined // not JSON (a cycle): compiled by identity only
  }
}

/** On the parse thread, by its JSON text; here where there is none, or the schema is not JSON. */
async function compileAnywhere(schema: Record<string, unknown>, text: string | undefined): Promise<SchemaSource> {
  if (text !== undefined) {
    const asked = await askParseThread({ kind: 'schema', text })
    if (asked !== undefined) return 'outOfMemory' in asked ? { invalid: 'it is too large to compile' } : (asked.answer as SchemaSource)
  }
  return compileSchemaSource(schema)
}

/** Compiles one schema into a validator, or says why Ajv refused it. */
async function makeValidator(schema: Record<string, unknown>, text: string | undefined): Promise<Made> {
  const source = await compileAnywhere(schema, text)
  if ('invalid' in source) return source
  const check = await validatorFromSource(source.source)
  return { validate: (value) => (check(value) ? undefined : describeErrors(check.errors)) }
}

/** A tool's input validator, compiled once per schema (object, or JSON text); throws INVALID_OPTIONS for a schema Ajv refuses. */
export async function validatorFor(toolName: string, schema: JsonSchema): Promise<Validate> {
  if (schema === true) return () => undefined
  if (schema === false) return () => 'no input is accepted'
  const cached = compiled.get(schema)
  if (cached !== undefined) return cached
  const text = schemaText(schema)
  let making = text === undefined ? undefined : byText.get(text)
  if (making === undefined) {
    making = makeValidator(schema, text)
    // A refused schema is a Made; a rejection is a failure to load (Ajv, a helper): the next run tries again.
    const forget = making
    if (text !== undefined) forget.catch(() => byText.get(text) === forget && byText.delete(text))
  }
  if (text !== undefined) {
    byText.delete(text)
    byText.set(text, making)
    if (byText.size > MAX_TEXTS) byText.delete(byText.keys().next().value as string)
  }
  const made = await making
  if ('invalid' in made) {
    throw new SandboxError('INVALID_OPTIONS', `tool "${toolName}": inputSchema is not a valid JSON Schema: ${made.invalid}`)
  }
  compiled.set(schema, made.validate)
  return made.validate
}

/**
 * Compiles every schema of a tool set before the run starts, so validation is synchronous. All at
 * once (each is a round trip to the parse thread); the first refused, in the tools' order, throws.
 */
export async function compileValidators(tools: ReadonlyMap<string, { inputSchema?: JsonSchema }>): Promise<Map<string, Validate>> {
  const withSchema = [...tools].filter(([, tool]) => tool.inputSchema !== undefined)
  const made = await Promise.allSettled(withSchema.map(([name, tool]) => validatorFor(name, tool.inputSchema!)))
  const out = new Map<string, Validate>()
  made.forEach((result, index) => {
    if (result.status === 'rejected') throw result.reason
    out.set(withSchema[index]![0], result.value)
  })
  return out
}
