/**
 * The executor's contract on every backend: providers as namespaces (object and positional
 * arguments), preludes, connectors, modules, console lines, errors, deadlines, aborts, binary
 * values and concurrency.
 */
import { createSandbox, type Sandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createCordonExecutor, type CordonExecutor, type ResolvedProvider } from '../src/index.js'
import { BACKENDS } from './support/backends.js'

describe.each(BACKENDS)('the cordon executor on %s', (_, backend) => {
  let sandbox: Sandbox
  let executor: CordonExecutor

  beforeAll(() => {
    sandbox = createSandbox(backend())
    executor = createCordonExecutor({ sandbox, timeout: 10_000 })
  })
  afterAll(() => sandbox.dispose())

  it('calls a provider function with an object argument, under the provider’s name', async () => {
    const listIssues = vi.fn(async (query: unknown) => [{ id: 1, query }])
    const result = await executor.execute('async () => await github.listIssues({ repo: "acme/app", state: "open" })', [
      { name: 'github', fns: { listIssues } },
    ])
    expect(result).toEqual({ result: [{ id: 1, query: { repo: 'acme/app', state: 'open' } }], logs: [] })
    expect(listIssues).toHaveBeenCalledWith({ repo: 'acme/app', state: 'open' })
  })

  it('passes positional arguments on as they are, binary ones included, and none when there are none', async () => {
    const write = vi.fn(async (...args: unknown[]) => args.length)
    const result = await executor.execute(
      `async () => [
        await state.write("/notes.txt", new Uint8Array([104, 105]), { append: true }),
        await state.write(),
      ]`,
      [{ name: 'state', fns: { write } }],
    )
    expect(result).toEqual({ result: [3, 0], logs: [] })
    expect(write).toHaveBeenNthCalledWith(1, '/notes.txt', new Uint8Array([104, 105]), { append: true })
    expect(write).toHaveBeenNthCalledWith(2)
  })

  it('carries binary values through a tool and back, and as the result', async () => {
    const reverse = vi.fn(async (bytes: unknown) => {
      expect(bytes).toBeInstanceOf(Uint8Array)
      return Uint8Array.from(bytes as Uint8Array).reverse()
    })
    const result = await executor.execute(
      `async () => {
        const back = await codemode.reverse(new Uint8Array([1, 2, 3]))
        const buffer = await codemode.reverse(new Uint8Array([7, 8]))
        return { back, isBytes: back instanceof Uint8Array, sum: back.reduce((a, b) => a + b, 0), buffer: buffer.buffer }
      }`,
      [{ name: 'codemode', fns: { reverse } }],
    )
    expect(result.error).toBeUndefined()
    const value = result.result as { back: Uint8Array; isBytes: boolean; sum: number; buffer: ArrayBuffer }
    expect(value.back).toEqual(new Uint8Array([3, 2, 1]))
    expect(value.isBytes).toBe(true)
    expect(value.sum).toBe(6)
    expect(new Uint8Array(value.buffer)).toEqual(new Uint8Array([8, 7]))
  })

  it('runs each prelude after the namespaces exist and before the code; what it defines wins over host functions', async () => {
    const decide = vi.fn(async (seq: unknown) => ({ kind: seq === 0 ? 'execute' : 'replay', result: 'cached' }))
    const record = vi.fn(async () => true)
    const shadowed = vi.fn(async () => 'host')
    const provider: ResolvedProvider = {
      name: 'codemode',
      fns: { decide, record, shadowed },
      prelude: `
        codemode.shadowed = async () => 'prelude'
        codemode.step = async (seq, fn) => {
          const decision = await codemode.decide(seq)
          if (decision.kind === 'replay') return decision.result
          const value = await fn()
          await codemode.record(value)
          return value
        }`,
    }
    const other: ResolvedProvider = { name: 'audit', fns: {}, prelude: 'audit.seen = typeof codemode.step' }
    const result = await executor.execute(
      `async () => {
        let ran = 0
        const first = await codemode.step(0, async () => { ran++; return 42 })
        const second = await codemode.step(1, async () => { ran++; return 43 })
        return { first, second, ran, shadowed: await codemode.shadowed(), seen: audit.seen }
      }`,
      [provider, other],
    )
    expect(result).toEqual({ result: { first: 42, second: 'cached', ran: 1, shadowed: 'prelude', seen: 'function' }, logs: [] })
    expect(record).toHaveBeenCalledWith(42)
    expect(shadowed).not.toHaveBeenCalled()
  })

  it('writes console lines as Cloudflare’s executors do, and keeps them when the code fails', async () => {
    const result = await executor.execute(
      `async () => {
        console.log('got', { a: 1 }, [1, 2], 3, null, undefined)
        console.info('info')
        console.warn('careful')
        console.error(new TypeError('bad'))
        console.debug('details')
        throw new Error('boom')
      }`,
      [],
    )
    expect(result).toEqual({
      result: undefined,
      error: 'boom',
      logs: ['got [object Object] 1,2 3 null undefined', '[info] info', '[warn] careful', '[error] TypeError: bad', '[debug] details'],
    })
  })

  it('reports what the code threw: its message, with its name when it is not plain Error', async () => {
    expect((await executor.execute('async () => { throw new Error("boom") }', [])).error).toBe('boom')
    expect((await executor.execute('async () => { throw new RangeError("too far") }', [])).error).toBe('RangeError: too far')
    expect((await executor.execute('async () => { throw "a string" }', [])).error).toBe('a string')
    expect((await executor.execute('async () => { undefinedFunction() }', [])).error).toMatch(/^ReferenceError: .*undefinedFunction/)
    const syntax = await executor.execute('async () => {\n  const x = ;\n}', [])
    expect(syntax.error).toMatch(/^SyntaxError: .* \(line 2, column \d+\)$/)
  })

  it('lets tool errors reach the code with their name and message, and reports uncaught ones', async () => {
    class QuotaError extends Error {
      override name = 'QuotaError'
      code = 'E_QUOTA'
    }
    const fns = {
      failing: async () => {
        throw new QuotaError('quota exceeded')
      },
    }
    const caught = await executor.execute(
      'async () => { try { await codemode.failing() } catch (e) { return [e instanceof Error, e.name, e.message, e.code] } }',
      [{ name: 'codemode', fns }],
    )
    expect(caught.result).toEqual([true, 'QuotaError', 'quota exceeded', 'E_QUOTA'])
    const uncaught = await executor.execute('async () => await codemode.failing()', [{ name: 'codemode', fns }])
    expect(uncaught).toEqual({ result: undefined, error: 'QuotaError: quota exceeded', logs: [] })
    const unknown = await executor.execute('async () => { try { await codemode.nope({}) } catch (e) { return e.message } }', [
      { name: 'codemode', fns },
    ])
    expect(unknown.result).toBe('Tool "nope" not found')
  })

  it('ends a runaway loop, a tool that never answers and a wait nothing can end, within the deadline', async () => {
    const short = createCordonExecutor({ sandbox, timeout: 500 })
    const loop = await short.execute('async () => { while (true) {} }', [])
    expect(loop.error).toMatch(/^Execution timed out/)
    const hanging = await short.execute('async () => await codemode.hang()', [
      { name: 'codemode', fns: { hang: () => new Promise(() => {}) } },
    ])
    expect(hanging.error).toMatch(/^Execution timed out/)
    const stuck = await short.execute('async () => await new Promise(() => {})', [])
    expect(stuck.error).toMatch(/DEADLOCK/)
  })

  it('ends executions when the executor’s signal or the execution’s own signal aborts', async () => {
    const controller = new AbortController()
    const aborting = createCordonExecutor({ sandbox, signal: controller.signal })
    const fns = { wait: () => new Promise(() => {}) }
    const pending = aborting.execute('async () => await codemode.wait()', [{ name: 'codemode', fns }])
    setTimeout(() => controller.abort(), 50)
    expect((await pending).error).toMatch(/^Execution aborted/)
    const own = new AbortController()
    const single = executor.execute('async () => await codemode.wait()', [{ name: 'codemode', fns }], { signal: own.signal })
    setTimeout(() => own.abort(), 50)
    expect((await single).error).toMatch(/^Execution aborted/)
  })

  it('runs tool calls and executions concurrently', async () => {
    let inFlight = 0
    let most = 0
    const slow = async (input: unknown) => {
      inFlight++
      most = Math.max(most, inFlight)
      await new Promise((resolve) => setTimeout(resolve, 50))
      inFlight--
      return (input as { id: number }).id
    }
    const code = 'async () => await Promise.all([1, 2, 3].map((id) => codemode.slow({ id: id * base.factor() })))'
    const results = await Promise.all(
      [1, 10].map((factor) =>
        executor.execute(code, [
          { name: 'codemode', fns: { slow } },
          { name: 'base', fns: {}, prelude: `base.factor = () => ${factor}` },
        ]),
      ),
    )
    expect(results.map((r) => r.result)).toEqual([
      [1, 2, 3],
      [10, 20, 30],
    ])
    expect(most).toBeGreaterThan(1)
  })

  it('sends connector calls to the binding, and turns its control answers into errors', async () => {
    const callTool = vi.fn(async (method: string, args: unknown) => {
      if (method === 'approve') return { __codemode_control__: 'pause' }
      if (method === 'broken') return { __codemode_control__: 'error', message: 'connector failed' }
      return { method, args }
    })
    const connectors = [{ name: 'crm', binding: { callTool } }]
    const ok = await executor.execute('async () => await crm.findContact({ email: "a@b.c" }, "ignored")', [], { connectors })
    expect(ok.result).toEqual({ method: 'findContact', args: { email: 'a@b.c' } })
    expect((await executor.execute('async () => await crm.approve({})', [], { connectors })).error).toBe('__CODEMODE_PAUSE__')
    expect((await executor.execute('async () => await crm.broken({})', [], { connectors })).error).toBe('connector failed')
  })

  it('lets the code import the modules it was given', async () => {
    const withModules = createCordonExecutor({
      sandbox,
      modules: { 'helpers.js': 'export function greet(name) { return "hello " + name }' },
    })
    const result = await withModules.execute('async () => { const { greet } = await import("helpers.js"); return greet("world") }', [])
    expect(result).toEqual({ result: 'hello world', logs: [] })
  })

  it('calls tools by their sanitized names and refuses names that cannot be namespaces', async () => {
    const fns = { 'list-issues': async () => 'listed', class: async () => 'reserved word' }
    const result = await executor.execute('async () => [await codemode.list_issues(), await codemode.class_()]', { ...fns })
    expect(result.result).toEqual(['listed', 'reserved word'])
    expect((await executor.execute('1', [{ name: 'not-a-name', fns: {} }])).error).toBe(
      'Provider name "not-a-name" is not a valid JavaScript identifier',
    )
    expect((await executor.execute('1', [{ name: 'Math', fns: {} }])).error).toBe('Provider name "Math" is reserved')
    expect((await executor.execute('1', [{ name: 'Math', fns: { abs: async () => 1 } }])).error).toMatch(/Math/)
    expect(
      (await executor.execute('1', [{ name: 'twice', fns: {} }], { connectors: [{ name: 'twice', binding: { callTool: async () => 1 } }] }))
        .error,
    ).toMatch(/^Duplicate connector name "twice"/)
  })

  it('normalizes what models write: fences, bare expressions, statements, TypeScript', async () => {
    const run = async (code: string) => (await executor.execute(code, [{ name: 'codemode', fns: { two: async () => 2 } }])).result
    expect(await run('```js\nawait codemode.two() + 1\n```')).toBe(3)
    expect(await run('Here it is:\n```ts\nconst n: number = await codemode.two()\nn * 10\n```\nDone.')).toBe(20)
    expect(await run('async function main() { return await codemode.two() }')).toBe(2)
    expect(await run('')).toBeUndefined()
  })
})

describe('an executor without a sandbox', () => {
  it('makes one over the backend it is given, disposes it, and reports executions after that as errors', async () => {
    const executor = createCordonExecutor({ backend: createQuickJSBackend() })
    expect(await executor.execute('6 * 7', [])).toEqual({ result: 42, logs: [] })
    await executor.dispose()
    const after = await executor.execute('6 * 7', [])
    expect(after.error).toMatch(/disposed/)
  })
})
