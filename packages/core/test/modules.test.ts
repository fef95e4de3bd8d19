import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox, type ModuleMap } from '../src/index.js'
import { normalizeCode, toUserPosition } from '../src/normalize/index.js'
import { compileModule } from '../src/modules/compile-module.js'
import { compileModules } from '../src/modules/module-graph.js'
import { linkProgram, renameModuleFrames } from '../src/modules/link-program.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const sandbox = createSandbox(createVmBackend())
afterAll(() => sandbox.dispose())

async function normalized(code: string) {
  const result = await normalizeCode(code, { imports: true })
  if (!result.ok) throw new Error(JSON.stringify(result.error))
  return result.program
}

describe('imports in the program', () => {
  it('become registry bindings on the same lines, with their specifiers and positions', async () => {
    const program = await normalized(
      "const a = 1\nimport d, { x as y, 'odd-name' as z } from 'm'\nimport * as ns from \"n\"\nimport 'side'\nd(y, z, ns)",
    )
    expect(program.imports).toEqual([
      { specifier: 'm', line: 2, column: 1 },
      { specifier: 'n', line: 3, column: 1 },
      { specifier: 'side', line: 4, column: 1 },
    ])
    const lines = program.script.split('\n')
    expect(lines).toHaveLength(7)
    expect(lines[2]).toBe('const { default: d, "x": y, "odd-name": z } = __cordon_require__("m");')
    expect(lines[3]).toBe('const ns = __cordon_require__("n");')
    expect(lines[4]).toBe('__cordon_require__("side");')
  })

  it('dynamic import() calls the registry without moving any column', async () => {
    const program = await normalized("const m = await import('x'); const k = 'import('\nreturn m")
    expect(program.script).toContain("await \u026amport('x')")
    expect(program.script).toContain("const k = 'import('")
    expect(toUserPosition(program, 2, 17)).toEqual({ line: 1, column: 17 })
  })

  it('is refused without modules, and cached apart from the variant with modules', async () => {
    const without = await normalizeCode("import x from 'm'\nx")
    expect(without.ok).toBe(false)
    expect((await normalizeCode("import x from 'm'\nx", { imports: true })).ok).toBe(true)
  })
})

describe('compiling a module', () => {
  it('refuses top-level await and reports syntax errors with the module line', async () => {
    expect(await compileModule('a', 'await 1\nexport const x = 1')).toMatchObject({ ok: false, message: /top-level await/ })
    expect(await compileModule('a', 'export const x = 1\nexport const y = (')).toMatchObject({ ok: false, line: 2 })
    expect((await compileModule('a', 'export async function f() { await 1 }')).ok).toBe(true)
  })

  it('sets exported function declarations before the body runs (cycles), and strips TypeScript by key', async () => {
    const js = await compileModule('a.js', 'export function f() {}\nexport default function g() {}')
    expect(js.ok && js.module.body.split('\n')[0]).toBe('"use strict";exports.f = f;exports.default = g;')
    expect((await compileModule('a.js', 'export const x: number = 1')).ok).toBe(false)
    expect((await compileModule('a.ts', 'export const x: number = 1')).ok).toBe(true)
  })

  it('cannot close the function it is placed in', async () => {
    expect((await compileModule('a', '}); globalThis.escaped = 1; (function () {')).ok).toBe(false)
  })
})

describe('linking', () => {
  it('keeps the program lines and maps module frames to module lines', async () => {
    const program = await normalized("import { f } from 'lib'\nf()")
    const compiled = await compileModules(new Map([['lib', 'export function f() {\n  throw new Error("x")\n}']]))
    const linked = linkProgram(program, compiled)
    const scriptLines = linked.script.split('\n')
    expect(scriptLines[1]).toBe(program.script.split('\n')[1])
    const span = linked.spans[0]!
    expect(scriptLines[span.firstLine]).toBe('  throw new Error("x")')
    const stack = 'Error: x\n    at f (guest.js:' + (span.firstLine + 1) + ':9)\n    at guest.js:3:1'
    expect(renameModuleFrames(stack, linked.spans)).toBe('Error: x\n    at f (lib:2:9)\n    at guest.js:3:1')
  })
})

describe('runs with modules', () => {
  const modules: ModuleMap = { lib: 'export const n = 1\nexport function boom() {\n  throw new TypeError("from lib")\n}' }

  it('report the program line of an error thrown in a module, and its frame by name', async () => {
    const r = await sandbox.run("import { boom } from 'lib'\n\nboom()", { modules })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error).toMatchObject({ code: 'RUNTIME_ERROR', name: 'TypeError', message: 'from lib', line: 3 })
    expect(r.error.stack).toContain('lib:3:')
  })

  it('run each loader once, together, and refuse option shapes with the key named', async () => {
    let calls = 0
    const r = await sandbox.run("import { n } from 'a'\nconst b = await import('b')\nreturn n + b.n", {
      modules: { a: () => (calls++, 'export const n = 1'), b: async () => (calls++, 'export const n = 2') },
    })
    expect(r).toMatchObject({ ok: true, value: 3 })
    expect(calls).toBe(2)
    await expect(sandbox.run('1', { modules: { 'a\nb': 'x' } })).rejects.toThrow(/usable specifier/)
    await expect(sandbox.run('1', { modules: { good: 'x', bad: {} } as never })).rejects.toThrow(/"bad"/)
    await expect(sandbox.run('1', { imports: {} } as never)).rejects.toThrow(/did you mean modules/)
  })

  it('end a run whose loader never settles at its deadline', async () => {
    const r = await sandbox.run("import x from 'slow'\nx", { modules: { slow: () => new Promise<string>(() => {}) }, timeoutMs: 100 })
    expect(r).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } })
  })
})
