import type { JsonSchema, Tool } from '@utcp/sdk'
import { guestName } from './guest-names.js'

/** The first line of `getAllToolsTypeScriptInterfaces()` and of the guest's `__interfaces`. */
export const DECLARATIONS_HEADER =
  '// TypeScript declarations of the UTCP tools a tool chain can call (each returns its result: no await needed)'

/** A schema as tools carry them: an object, `true`/`false`, or nothing at all. */
type Schema = JsonSchema | boolean | undefined

/** Past this many nested schemas (a pathological manual), a type is `unknown`. */
const MAX_DEPTH = 24

interface Scope {
  /** The schema `$ref`s point into (the tool's `inputs` or `outputs`). */
  root: Schema
  depth: number
  /** The `$ref`s being expanded around this schema: one met again is recursive, and typed `unknown`. */
  refs: ReadonlySet<string>
}

/**
 * One tool as TypeScript: its input and output types and the function guest code calls, in the
 * namespace of its manual (`declare namespace weather { … function get_current(args: get_currentInput): get_currentOutput }`),
 * with the tool's description, tags and each property's description and default as doc comments.
 */
export function toolDeclaration(tool: Tool): string {
  const { namespace, name } = guestName(tool.name)
  const indent = namespace === undefined ? '' : '  '
  const inputName = `${name}Input`
  const outputName = `${name}Output`
  const tags = tool.tags.length > 0 ? [`@tags ${tool.tags.join(', ')}`] : []
  const argsOptional = requiredNames(resolve(tool.inputs, scopeOf(tool.inputs))).length === 0
  const members = [
    typeDeclaration(inputName, tool.inputs, indent),
    typeDeclaration(outputName, tool.outputs, indent),
    docComment([...textLines(tool.description), ...tags], indent) +
      `${indent}${namespace === undefined ? 'declare ' : ''}function ${name}(args${argsOptional ? '?' : ''}: ${inputName}): ${outputName};`,
  ]
  if (namespace === undefined) return members.join('\n')
  return `declare namespace ${namespace} {\n${members.join('\n')}\n}`
}

/** Every tool's declaration under one header line: `getAllToolsTypeScriptInterfaces()` and the guest's `__interfaces`. */
export function allDeclarations(tools: readonly Tool[]): string {
  return [DECLARATIONS_HEADER, ...tools.map(toolDeclaration)].join('\n\n')
}

/** `interface Name { … }` for an object schema, `type Name = …;` for anything else. */
function typeDeclaration(typeName: string, schema: Schema, indent: string): string {
  const scope = scopeOf(schema)
  const target = resolve(schema, scope)
  const doc = typeof target === 'object' && target !== null ? docComment(textLines(target.description), indent) : ''
  if (isPlainObject(target)) return `${doc}${indent}interface ${typeName} ${objectType(target, indent, scope)}`
  return `${doc}${indent}type ${typeName} = ${typeOf(schema, indent, scope)};`
}

function typeOf(schema: Schema, indent: string, scope: Scope): string {
  if (schema === false) return 'never'
  if (typeof schema !== 'object' || schema === null || scope.depth > MAX_DEPTH) return 'unknown'
  const inner: Scope = { ...scope, depth: scope.depth + 1 }
  const ref = schema.$ref
  if (typeof ref === 'string') {
    if (scope.refs.has(ref)) return 'unknown'
    return typeOf(pointer(scope.root, ref), indent, { ...inner, refs: new Set([...scope.refs, ref]) })
  }
  if ('const' in schema) return literal(schema.const)
  if (Array.isArray(schema.enum)) return schema.enum.length === 0 ? 'never' : schema.enum.map(literal).join(' | ')
  const alternatives = schemaList(schema.anyOf) ?? schemaList(schema.oneOf)
  if (alternatives !== undefined)
    return nullable(
      schema,
      alternatives.map((s) => typeOf(s, indent, inner)),
    )
  const parts = schemaList(schema.allOf)
  if (parts !== undefined) return parts.map((s) => grouped(typeOf(s, indent, inner))).join(' & ') || 'unknown'
  const types = typeNames(schema)
  if (types.length === 0) return 'unknown'
  return nullable(
    schema,
    types.map((type) => namedType(type, schema, indent, inner)),
  )
}

function namedType(type: string, schema: JsonSchema, indent: string, scope: Scope): string {
  switch (type) {
    case 'string':
      return 'string'
    case 'number':
    case 'integer':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'null':
      return 'null'
    case 'array':
      return arrayType(schema, indent, scope)
    case 'object':
      return objectType(schema, indent, scope)
    default:
      return 'unknown'
  }
}

function arrayType(schema: JsonSchema, indent: string, scope: Scope): string {
  const tuple = schemaList(schema.prefixItems) ?? (Array.isArray(schema.items) ? schema.items : undefined)
  if (tuple !== undefined) {
    const rest = !Array.isArray(schema.items) && schema.items !== undefined ? [`...${grouped(typeOf(schema.items, indent, scope))}[]`] : []
    return `[${[...tuple.map((s) => typeOf(s, indent, scope)), ...rest].join(', ')}]`
  }
  return `${grouped(schema.items === undefined ? 'unknown' : typeOf(schema.items as Schema, indent, scope))}[]`
}

/** An object type over several lines: each property with its doc comment, `?` unless required. */
function objectType(schema: JsonSchema, indent: string, scope: Scope): string {
  const inner = `${indent}  `
  const required = new Set(requiredNames(schema))
  const properties = typeof schema.properties === 'object' && schema.properties !== null ? Object.entries(schema.properties) : []
  const lines = properties.map(([key, property]: [string, Schema]) => {
    const doc = typeof property === 'object' && property !== null ? propertyDoc(property) : []
    return `${docComment(doc, inner)}${inner}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${typeOf(property, inner, scope)};`
  })
  const additional = schema.additionalProperties
  if (additional !== false && (properties.length === 0 || additional !== undefined)) {
    // With named properties the index type must admit theirs too: unknown says it honestly.
    const valueType = properties.length === 0 && typeof additional === 'object' ? typeOf(additional, inner, scope) : 'unknown'
    lines.push(`${inner}[key: string]: ${valueType};`)
  }
  return lines.length === 0 ? '{}' : `{\n${lines.join('\n')}\n${indent}}`
}

function propertyDoc(property: JsonSchema): string[] {
  const lines = textLines(property.description)
  if (property.default !== undefined) lines.push(`@default ${JSON.stringify(property.default)}`)
  return lines
}

/** A doc comment ending in a line break (nothing when there is nothing to say); `*\/` cannot end it early. */
function docComment(lines: string[], indent: string): string {
  const safe = lines.map((line) => line.replaceAll('*/', '*\\/'))
  if (safe.length === 0) return ''
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`
  return `${indent}/**\n${safe.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`
}

function textLines(text: unknown): string[] {
  if (typeof text !== 'string' || text.trim() === '') return []
  return text.trim().split(/\r?\n/)
}

function scopeOf(root: Schema): Scope {
  return { root, depth: 0, refs: new Set() }
}

/** The schema itself, or what its top-level `$ref` points at. */
function resolve(schema: Schema, scope: Scope): Schema {
  let target = schema
  for (let depth = 0; typeof target === 'object' && target !== null && typeof target.$ref === 'string'; depth++) {
    if (depth > MAX_DEPTH) return undefined
    target = pointer(scope.root, target.$ref)
  }
  return target
}

/** A local JSON pointer (`#/definitions/Point`, `#/$defs/Point`); anything else is unknown. */
function pointer(root: Schema, ref: string): Schema {
  if (!ref.startsWith('#')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node as Schema
}

function isPlainObject(schema: Schema): schema is JsonSchema {
  if (typeof schema !== 'object' || schema === null) return false
  if (['anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref'].some((key) => key in schema)) return false
  return schema.type === 'object' || (schema.type === undefined && typeof schema.properties === 'object')
}

function typeNames(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type
  if (typeof schema.type === 'string') return [schema.type]
  if (typeof schema.properties === 'object' || typeof schema.additionalProperties === 'object') return ['object']
  if (schema.items !== undefined || schema.prefixItems !== undefined) return ['array']
  return []
}

function requiredNames(schema: Schema): string[] {
  if (typeof schema !== 'object' || schema === null || !Array.isArray(schema.required)) return []
  return schema.required.filter((name): name is string => typeof name === 'string')
}

function schemaList(value: unknown): Schema[] | undefined {
  return Array.isArray(value) && value.length > 0 ? (value as Schema[]) : undefined
}

/** A union, with `| null` for OpenAPI's `nullable: true`; repeated members once. */
function nullable(schema: JsonSchema, members: string[]): string {
  const all = schema.nullable === true ? [...members, 'null'] : members
  return [...new Set(all)].join(' | ')
}

function grouped(type: string): string {
  return /[|&]/.test(type) ? `(${type})` : type
}

function literal(value: unknown): string {
  return JSON.stringify(value) ?? 'unknown'
}

function propertyKey(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key)
}
