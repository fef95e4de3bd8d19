import type { JsonSchema, ToolSet } from '@cordon/core'

/** One line per tool for `.tools`: how the guest calls it, and what it is for. */
export interface ToolSignature {
  name: string
  /** `github.listIssues(args: { repo: string }): Promise<unknown>` */
  signature: string
  description: string | undefined
}

/** Deeper than this, a schema is shown as `unknown`: a signature is a line, not a type dump. */
const MAX_DEPTH = 4

export function toolSignatures(tools: ToolSet): ToolSignature[] {
  return Object.keys(tools)
    .sort()
    .map((name) => {
      const tool = tools[name]!
      const schema = tool.inputSchema
      // Core checks a call without an argument as `{}`: the argument is optional when `{}` would do.
      const optional = schema === undefined || !hasRequired(schema)
      const args = `args${optional ? '?' : ''}: ${schema === undefined ? 'unknown' : typeOf(schema, 0)}`
      const description = tool.description?.trim().split('\n')[0]
      return { name, signature: `${name}(${args}): ${tool.sync === true ? 'unknown' : 'Promise<unknown>'}`, description }
    })
}

/** A JSON Schema as a TypeScript type, on one line, for the common keywords; anything else is `unknown`. */
export function typeOf(schema: JsonSchema, depth: number): string {
  if (schema === true) return 'unknown'
  if (schema === false) return 'never'
  if (depth > MAX_DEPTH) return 'unknown'
  if ('const' in schema) return literal(schema.const)
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal))
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (Array.isArray(variants)) return union(variants.map((variant) => typeOf(variant, depth + 1)))
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type]
  return union(types.map((type) => typeNamed(type, schema, depth)))
}

function typeNamed(type: unknown, schema: Record<string, unknown>, depth: number): string {
  switch (type) {
    case 'string':
    case 'boolean':
    case 'null':
      return type
    case 'number':
    case 'integer':
      return 'number'
    case 'array':
      return arrayType(schema.items as JsonSchema | undefined, depth)
    case 'object':
      return objectType(schema, depth)
    case undefined:
      return schema.properties === undefined ? 'unknown' : objectType(schema, depth)
    default:
      return 'unknown'
  }
}

function arrayType(items: JsonSchema | undefined, depth: number): string {
  const item = items === undefined || Array.isArray(items) ? 'unknown' : typeOf(items, depth + 1)
  return /[|&\s]/.test(item) && !item.startsWith('{') ? `(${item})[]` : `${item}[]`
}

function objectType(schema: Record<string, unknown>, depth: number): string {
  const properties = schema.properties as Record<string, JsonSchema> | undefined
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : [])
  if (properties === undefined || Object.keys(properties).length === 0) {
    const extra = schema.additionalProperties
    return `Record<string, ${typeof extra === 'object' && extra !== null ? typeOf(extra as JsonSchema, depth + 1) : 'unknown'}>`
  }
  const members = Object.entries(properties).map(([key, value]) => {
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)
    return `${name}${required.has(key) ? '' : '?'}: ${typeOf(value, depth + 1)}`
  })
  return `{ ${members.join('; ')} }`
}

function hasRequired(schema: JsonSchema): boolean {
  return typeof schema === 'object' && Array.isArray(schema.required) && schema.required.length > 0
}

function literal(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value)
}

function union(parts: string[]): string {
  const distinct = [...new Set(parts)]
  return distinct.length === 0 ? 'never' : distinct.join(' | ')
}
