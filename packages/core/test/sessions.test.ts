import { describe, expect, it } from 'vitest'
import { createSandbox, isSandboxError } from '../src/index.js'
import { normalizeCode } from '../src/normalize/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

async function scriptOf(code: string): Promise<string> {
  const result = await normalizeCode(code, { persistTopLevel: true })
  if (!result.ok) throw new Error(result.error.message)
  return result.program.script
}

describe('session normalization', () => {
  it('makes every name a top-level declaration binds a live global, on the same line', async () => {
    const script = await scriptOf('const { a, b: [c], ...d } = o, e = 1\nexport let f = 2\nclass G {}\nfunction h() {}\nh()')
    const live = (name: string) =>
      `Object.defineProperty(globalThis,"${name}",{get(){return ${name}},set(v){${name}=v},configurable:true,enumerable:true})`
    expect(script.split('\n')).toEqual([
      '(async function () {',
      `const { a, b: [c], ...d } = o, e = 1;${['a', 'c', 'd', 'e'].map(live).join(';')};`,
      `let f = 2;${live('f')};`,
      `class G {};${live('G')};`,
      `function h() {};${live('h')};`,
      'return (h())',
      '})',
    ])
  })

  it('leaves a lone function declaration uncalled (a one-off run calls it)', async () => {
    const script = await scriptOf('async function main() {}')
    expect(script).toContain('Object.defineProperty(globalThis,"main"')
    expect(script).not.toContain(')()')
    const oneOff = await normalizeCode('async function main() {}')
    expect(oneOff.ok && oneOff.program.script).toContain(')()')
  })

  it('keeps nested declarations local', async () => {
    expect(await scriptOf('if (x) { const inner = 1 }\nfor (let i = 0; i < 1; i++) {}')).not.toContain('globalThis.')
  })
})

describe('createSession', () => {
  it('throws UNSUPPORTED on a backend that declares no sessions, INVALID_OPTIONS for bad options', async () => {
    const backend = createVmBackend()
    const without = createSandbox({ ...backend, capabilities: { ...backend.capabilities, sessions: false } })
    await expect(without.createSession()).rejects.toSatisfy((e) => isSandboxError(e, 'UNSUPPORTED'))
    const sandbox = createSandbox(createVmBackend())
    await expect(sandbox.createSession('x' as never)).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
    await expect(sandbox.createSession({ id: '' })).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
    await expect(sandbox.createSession({ globals: { console: 1 } })).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
    const session = await sandbox.createSession()
    await expect(session.run('1', { tools: 'a' as never })).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
    await expect(session.run(1 as never)).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
    await sandbox.dispose()
    await expect(sandbox.createSession()).rejects.toSatisfy((e) => isSandboxError(e, 'DISPOSED'))
    expect(session.ended?.code).toBe('DISPOSED')
  })
})
