/**
 * The TypeScript the client writes for tools (`toolToTypeScriptInterface`, `__interfaces`): its
 * exact shape for a plain tool, the JSON Schema features it renders, and that TypeScript accepts it.
 */
import type { JsonSchema, Tool } from '@utcp/sdk'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { CodeModeUtcpClient, guestName } from '../src/index.js'

function tool(name: string, inputs: JsonSchema, outputs: JsonSchema, description = 'Does a thing', tags: string[] = []): Tool {
  return { name, description, inputs, outputs, tags, tool_call_template: { call_template_type: 'direct-call' } }
}

const add = tool(
  'test_tools.add',
  { type: 'object', properties: { a: { type: 'number', description: 'First number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] },
  'Adds two numbers together',
  ['math', 'arithmetic'],
)

const search = tool(
  'shop.search.v2-items',
  {
    type: 'object',
    description: 'A search',
    properties: {
      q: { type: 'string', description: 'Words to find.\nA comment cannot end early: */' },
      'max-results': { type: 'integer', default: 10 },
      sort: { enum: ['price', 'name'] },
      filter: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
      near: { $ref: '#/$defs/Point' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      pair: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'string' }] },
      maybe: { type: 'string', nullable: true },
      either: { type: ['string', 'null'] },
      fixed: { const: 'v1' },
      both: {
        allOf: [
          { type: 'object', properties: { x: { type: 'number' } } },
          { type: 'object', properties: { y: { type: 'number' } } },
        ],
      },
    },
    $defs: { Point: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } }, required: ['lat', 'lon'] } },
  },
  { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, parent: { $ref: '#/items' } } } },
  'Finds items.\nSecond line.',
)

const unnamespaced = tool('plain', {}, { type: 'string', enum: ['a', 'b'] })

/** Type-checks declarations as a .d.ts file: the diagnostics TypeScript reports, as text. */
function typeCheck(declarations: string): string[] {
  const file = '/tools.d.ts'
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [] }
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  const getSourceFile = host.getSourceFile.bind(host)
  host.readFile = (name) => (name === file ? declarations : readFile(name))
  host.fileExists = (name) => name === file || ts.sys.fileExists(name)
  host.getSourceFile = (name, version) => (name === file ? ts.createSourceFile(name, declarations, version) : getSourceFile(name, version))
  const program = ts.createProgram([file], options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
}

describe('toolToTypeScriptInterface', () => {
  let client: CodeModeUtcpClient
  beforeAll(async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {})
    client = await CodeModeUtcpClient.create()
  })
  afterAll(async () => {
    await client.close()
  })

  it("declares a tool's input, output and function in its manual's namespace", () => {
    expect(client.toolToTypeScriptInterface(add)).toBe(
      [
        'declare namespace test_tools {',
        '  interface addInput {',
        '    /** First number */',
        '    a: number;',
        '    b: number;',
        '  }',
        '  interface addOutput {',
        '    result: number;',
        '  }',
        '  /**',
        '   * Adds two numbers together',
        '   * @tags math, arithmetic',
        '   */',
        '  function add(args: addInput): addOutput;',
        '}',
      ].join('\n'),
    )
    expect(client.toolToTypeScriptInterface(unnamespaced)).toBe(
      [
        'type plainInput = unknown;',
        'type plainOutput = "a" | "b";',
        '/** Does a thing */',
        'declare function plain(args?: plainInput): plainOutput;',
      ].join('\n'),
    )
  })

  it('renders enums, unions, intersections, tuples, maps, local $refs, defaults and multi-line docs', () => {
    const text = client.toolToTypeScriptInterface(search)
    expect(text).toContain('declare namespace shop {\n  /** A search */\n  interface search_v2_itemsInput {')
    for (const part of [
      '     * Words to find.\n     * A comment cannot end early: *\\/\n     */\n    q?: string;',
      '    /** @default 10 */\n    "max-results"?: number;',
      '    sort?: "price" | "name";',
      '    filter?: string | string[];',
      '    near?: {\n      lat: number;\n      lon: number;\n    };',
      '    labels?: {\n      [key: string]: string;\n    };',
      '    pair?: [number, string];',
      '    maybe?: string | null;',
      '    either?: string | null;',
      '    fixed?: "v1";',
      '    both?: {\n      x?: number;\n    } & {\n      y?: number;\n    };',
      // A recursive $ref is expanded once, then unknown.
      '  type search_v2_itemsOutput = {\n    id?: string;\n    parent?: {\n      id?: string;\n      parent?: unknown;\n    };\n  }[];',
      '   * Finds items.\n   * Second line.\n   */\n  function search_v2_items(args?: search_v2_itemsInput): search_v2_itemsOutput;',
    ]) {
      expect(text).toContain(part)
    }
  })

  it('writes declarations TypeScript accepts', () => {
    const manuals = [add, search, unnamespaced, tool('test_tools.sub', { type: 'object', properties: {} }, {})]
    const all = manuals.map((t) => client.toolToTypeScriptInterface(t)).join('\n\n')
    expect(typeCheck(all)).toEqual([])
    expect(typeCheck('declare namespace x { function f(): }')).not.toEqual([])
  })
})

describe('guest names, as UTCP names them', () => {
  it.each([
    ['weather.get_current', 'weather', 'get_current'],
    ['my_api.get-item', 'my_api', 'get_item'],
    ['shop.search.v2', 'shop', 'search_v2'],
    ['1st.2nd-tool', '_1st', '_2nd_tool'],
  ])('%s → %s.%s', (name, namespace, fn) => {
    expect(guestName(name)).toEqual({ namespace, name: fn, path: `${namespace}.${fn}` })
  })

  it('puts a tool without a manual in the global scope', () => {
    expect(guestName('get time')).toEqual({ name: 'get_time', path: 'get_time' })
  })
})
