import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox } from '../src/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const sandbox = createSandbox(createVmBackend())
afterAll(() => sandbox.dispose())

async function logsOf(code: string): Promise<string[]> {
  const r = await sandbox.run(code)
  return r.logs.map((entry) => entry.message)
}

describe('console formatting', () => {
  it('formats like Node for common values', async () => {
    expect(
      await logsOf(`
        console.log('a', 1, { b: 'x', c: [1, 2] })
        console.log([1, , 3], new Map([['k', 1]]), new Set([1]))
        console.log('%s is %d', 'n', 42, 'extra')
        console.log(null, undefined, -0, 10n, Symbol('s'))
        console.log(new Error('boom'), function named() {}, class K {})
        console.log({ 'a-b': 1, nested: { deep: { deeper: { deepest: 1 } } } })
        class P { constructor() { this.x = 1 } }
        console.log(new P(), Object.create(null), new Uint8Array([1, 2]))
      `),
    ).toEqual([
      "a 1 { b: 'x', c: [ 1, 2 ] }",
      "[ 1, <1 empty item>, 3 ] Map(1) { 'k' => 1 } Set(1) { 1 }",
      'n is 42 extra',
      'null undefined -0 10n Symbol(s)',
      'Error: boom [Function: named] [class K]',
      "{ 'a-b': 1, nested: { deep: { deeper: [Object] } } }",
      'P { x: 1 } [Object: null prototype] {} Uint8Array(2) [ 1, 2 ]',
    ])
  })

  it('sums up huge arrays instead of visiting every index', async () => {
    // Visiting 2 ** 32 indices one by one would take minutes: the test's timeout would end it.
    const [sparse, dense, named] = await logsOf(`
      console.log(new Array(2 ** 32 - 1))
      console.log(new Array(1e6).fill(0))
      const a = [1, 2]; a.extra = true; console.log(a)
    `)
    expect(sparse).toBe('[ <10000 empty items>, ... 4294957295 more items ]')
    const lines = dense!.split('\n')
    expect(lines).toHaveLength(103)
    expect(lines.slice(-3)).toEqual(['  0,', '  ... 999900 more items', ']'])
    expect(named).toBe('[ 1, 2, extra: true ]')
  })

  it('breaks long objects over lines', async () => {
    const [message] = await logsOf(`console.log({ first: 'a'.repeat(30), second: 'b'.repeat(30), third: 3 })`)
    expect(message).toBe(`{\n  first: '${'a'.repeat(30)}',\n  second: '${'b'.repeat(30)}',\n  third: 3\n}`)
  })

  it('keeps levels and cuts long entries with a marker', async () => {
    const r = await sandbox.run(
      `console.warn('w'); console.error('e'); console.info('i'); console.debug('d'); console.log('x'.repeat(5000))`,
      {
        maxLogBytes: 100,
      },
    )
    expect(r.logs.map((l) => l.level)).toEqual(['warn', 'error', 'info', 'debug', 'log'])
    const last = r.logs[4]!.message
    expect(last.endsWith('…[truncated]')).toBe(true)
    expect(last.length).toBeLessThanOrEqual(100 + '…[truncated]'.length)
  })
})

describe('tools', () => {
  it('calls namespaced tools with validated input', async () => {
    const seen: unknown[] = []
    const r = await sandbox.run(
      `const sum = await math.add({ a: 1, b: 2 })
       let message
       try { await math.add({ a: 'x' }) } catch (e) { message = e.constructor.name + ': ' + e.message }
       return { sum, message }`,
      {
        tools: {
          'math.add': {
            inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
            execute: (args: { a: number; b: number }) => {
              seen.push(args)
              return args.a + args.b
            },
          },
        },
      },
    )
    expect(r.ok && r.value).toMatchObject({ sum: 3 })
    expect((r.ok && (r.value as { message: string }).message) || '').toMatch(/^TypeError: Invalid arguments for tool math.add/)
    expect(seen).toEqual([{ a: 1, b: 2 }])
    expect(r.stats.toolCalls).toBe(2)
  })

  it('takes a tool schema with an $id again in a fresh object each run, and in two tools at once', async () => {
    // Hosts often build their tools per run; ajv refuses a second schema with an $id it has seen.
    const weather = () => ({
      $id: 'https://example.com/weather',
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    })
    const tools = () => ({
      'w.now': { inputSchema: weather(), execute: ({ city }: { city: string }) => `sun in ${city}` },
      'w.later': { inputSchema: weather(), execute: ({ city }: { city: string }) => `rain in ${city}` },
    })
    const code = `let bad
try { await w.now({}) } catch (e) { bad = e.constructor.name }
return [await w.now({ city: 'Oslo' }), await w.later({ city: 'Lima' }), bad]`
    for (let run = 0; run < 3; run++) {
      const r = await sandbox.run(code, { tools: tools() })
      expect(r.ok ? r.value : r.error).toEqual(['sun in Oslo', 'rain in Lima', 'TypeError'])
    }
  })

  it('gives the guest only the message of a tool error', async () => {
    const r = await sandbox.run(`try { await svc.fail() } catch (e) { return [e.message, String(e.stack).includes('node_modules')] }`, {
      tools: {
        'svc.fail': {
          execute: () => {
            throw new Error('nope')
          },
        },
      },
    })
    expect(r.ok && r.value).toEqual(['nope', false])
  })

  it('ends the run at the tool-call limit even if the guest catches it', async () => {
    const r = await sandbox.run(`for (let i = 0; i < 10; i++) { try { await t.x() } catch {} } return 'done'`, {
      maxToolCalls: 3,
      tools: { 't.x': { execute: () => 1 } },
    })
    expect(r.ok === false && r.error.code).toBe('TOOL_CALL_LIMIT')
    expect(r.stats.toolCalls).toBe(4)
  })

  it('aborts a pending tool at the deadline', async () => {
    let aborted = false
    const started = Date.now()
    const r = await sandbox.run(`await slow.wait()`, {
      timeoutMs: 200,
      tools: {
        'slow.wait': {
          execute: (_: unknown, { signal }) =>
            new Promise((resolve) =>
              signal.addEventListener('abort', () => {
                aborted = true
                resolve(1)
              }),
            ),
        },
      },
    })
    expect(r.ok === false && r.error.code).toBe('TIMEOUT')
    expect(Date.now() - started).toBeLessThan(700)
    expect(aborted).toBe(true)
  })

  it('runs sync tools without await', async () => {
    const r = await sandbox.run(`host.now() + 1`, { tools: { 'host.now': { sync: true, execute: () => 41 } } })
    expect(r.ok && r.value).toBe(42)
  })
})
