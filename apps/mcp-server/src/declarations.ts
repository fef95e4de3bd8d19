import { compile } from 'json-schema-to-typescript'
import type { GuestNamespace, GuestTool } from './guest-catalog.js'
import { pascalCase } from './guest-names.js'
import { log } from './log.js'

/**
 * TypeScript declarations of every namespace in the sandbox, from the upstream tools' JSON
 * Schemas: one `declare namespace` per upstream server, one function per tool, an `…Input`
 * interface for its argument and an `…Output` interface when the tool declares an
 * outputSchema (its structuredContent is then what the call resolves to).
 */
export interface Declarations {
  /** Every namespace, for the tool description, get_declarations and the resource. */
  all: string
  /** Each namespace alone, for `get_declarations({ namespace })`. */
  byNamespace: ReadonlyMap<string, string>
  /**
   * Only the tools named (`namespace.tool`, by guest or MCP name), each in its namespace's
   * block, for `get_declarations({ tools })`; names that match no tool come back in `missing`.
   */
  forTools(labels: readonly string[]): { text: string; missing: string[] }
}

/** One tool's part of its namespace block. */
interface ToolDeclaration {
  tool: GuestTool
  /** The doc comment and the function signature. */
  signature: string[]
  /** Its `…Input` / `…Output` interfaces (empty strings when none is needed). */
  types: string[]
}

/** Generated once at startup: the upstream tools do not change while the server runs. */
export async function declarationsFor(namespaces: readonly GuestNamespace[]): Promise<Declarations> {
  const withTools = namespaces.filter((ns) => ns.tools.length > 0)
  const declared = await Promise.all(
    withTools.map(async (ns) => ({ ns, tools: await Promise.all(ns.tools.map((tool) => toolDeclaration(ns, tool))) })),
  )
  const blocks = declared.map(({ ns, tools }) => namespaceBlock(ns, tools))
  return {
    all: blocks.join('\n\n'),
    byNamespace: new Map(withTools.map((ns, i) => [ns.name, blocks[i]!])),
    forTools(labels) {
      const wanted = new Set(labels)
      const found = new Set<string>()
      const parts: string[] = []
      for (const { ns, tools } of declared) {
        const chosen = tools.filter(({ tool }) =>
          [`${ns.name}.${tool.guestName}`, `${ns.name}.${tool.upstreamName}`].some((label) => wanted.has(label) && found.add(label)),
        )
        if (chosen.length > 0) parts.push(namespaceBlock(ns, chosen))
      }
      return { text: parts.join('\n\n'), missing: labels.filter((label) => !found.has(label)) }
    },
  }
}

async function toolDeclaration(namespace: GuestNamespace, tool: GuestTool): Promise<ToolDeclaration> {
  const base = pascalCase(tool.guestName)
  const input = await typeFor(tool.inputSchema, `${base}Input`, `${namespace.name}.${tool.guestName} input`)
  const output =
    tool.outputSchema === undefined
      ? undefined
      : await typeFor(tool.outputSchema, `${base}Output`, `${namespace.name}.${tool.guestName} output`)
  return {
    tool,
    signature: [...docComment(tool), `  function ${tool.guestName}(args: ${input.reference}): Promise<${output?.reference ?? 'unknown'}>;`],
    types: [input.declaration, ...(output === undefined ? [] : [output.declaration])],
  }
}

function namespaceBlock(namespace: GuestNamespace, tools: readonly ToolDeclaration[]): string {
  const about = namespace.info === undefined ? '' : ` (${namespace.info.name} ${namespace.info.version})`
  const lines = [`/** Tools of the upstream MCP server "${namespace.name}"${about}. */`, `declare namespace ${namespace.name} {`]
  for (const { signature } of tools) lines.push(...signature)
  const declared = tools
    .flatMap(({ types }) => types)
    .filter((text) => text !== '')
    .join('\n')
  if (declared !== '') lines.push('', indent(declared))
  lines.push('}')
  return lines.join('\n')
}

interface CompiledType {
  /** What the signature refers to. */
  reference: string
  /** The interfaces to declare in the namespace (empty when the reference needs none). */
  declaration: string
}

async function typeFor(schema: Record<string, unknown>, name: string, what: string): Promise<CompiledType> {
  // The root `title` would replace our name for the interface; keep the name predictable.
  const { title: _title, ...untitled } = structuredClone(schema)
  try {
    const text = await compile(untitled, name, {
      bannerComment: '',
      // Read for docs, not enforced here (cordon validates with the real schema): leave out
      // the `[k: string]: unknown` noise that open objects would add to every interface.
      additionalProperties: false,
      unknownAny: true,
      // A schema from an upstream must never make us read files or fetch URLs.
      $refOptions: { resolve: { external: false } },
      declareExternallyReferenced: true,
    })
    // Members of a `declare namespace` are exported when none is marked `export`.
    return { reference: name, declaration: text.replace(/^export /gm, '').trim() }
  } catch (error) {
    log(`could not turn the JSON Schema of ${what} into TypeScript (${(error as Error).message}); declaring it as an object`)
    return { reference: 'Record<string, unknown>', declaration: '' }
  }
}

function docComment(tool: GuestTool): string[] {
  const text = [tool.title, tool.description].filter((part): part is string => part !== undefined && part.trim() !== '')
  if (tool.upstreamName !== tool.guestName) text.push(`(MCP tool "${tool.upstreamName}")`)
  if (text.length === 0) return []
  const body = text.join('\n\n').replace(/\*\//g, '*\\/').split('\n')
  return ['  /**', ...body.map((line) => `   * ${line}`.trimEnd()), '   */']
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n')
}
