/**
 * A tool's inputSchema compiled by Ajv into the source of a standalone validator (a CommonJS
 * module, see validator-source.ts). Done on the parse thread: loading Ajv and its first
 * compilation hold a thread for ~70–150 ms on a slow VM, and the host's event loop must not
 * be that thread. Where there is no parse thread (browsers, single-file bundles), done here.
 */

/** The validator's source, or why the schema was refused (Ajv's message). */
export type SchemaSource = { source: string } | { invalid: string }

type AjvLike = { compile(schema: unknown): unknown; removeSchema(): unknown }
type Standalone = (ajv: AjvLike, validate: unknown) => string

let draft07: Promise<AjvLike> | undefined
let draft2020: Promise<AjvLike> | undefined
let standalone: Promise<Standalone> | undefined

/** `code.source` keeps what standalone code needs; the rest as Ajv is used elsewhere. */
const AJV_OPTIONS = { strict: false, allErrors: false, code: { source: true } }

/** Draft-04 to -07 schemas by their `$schema`; everything else as 2020-12. */
function ajvFor(schema: Record<string, unknown>): Promise<AjvLike> {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : ''
  const make = (m: { default: unknown }) => new (m.default as new (o: object) => AjvLike)(AJV_OPTIONS)
  if (/draft-0[4-7]/.test(dialect)) return (draft07 ??= import('ajv').then(make))
  return (draft2020 ??= import('ajv/dist/2020.js').then(make))
}

export async function compileSchemaSource(schema: Record<string, unknown>): Promise<SchemaSource> {
  const [ajv, toSource] = await Promise.all([
    ajvFor(schema),
    (standalone ??= import('ajv/dist/standalone/index.js').then((m) => m.default as unknown as Standalone)),
  ])
  try {
    return { source: toSource(ajv, ajv.compile(schema)) }
  } catch (error) {
    return { invalid: error instanceof Error ? error.message : String(error) }
  } finally {
    // Each schema stands alone: Ajv keeps none of them (its meta-schemas stay). Else it refuses
    // a schema whose $id it has seen (the same tool built again, two tools sharing one), and a
    // host that builds its schemas per run grows Ajv's cache by one compiled schema per run.
    ajv.removeSchema()
  }
}
