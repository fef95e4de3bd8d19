import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connect,
  DEMO_UPSTREAM,
  eventually,
  progressBeforeResponse,
  recordMessages,
  runJavaScript,
  TRANSPORTS,
  writeConfig,
  type Connection,
} from './helpers.js'

// The same cases over stdio and over Streamable HTTP: one server per transport, on QuickJS (no
// child process pool to warm), with a low timeout ceiling so the clamping test stays short.
describe.each(TRANSPORTS)('run_javascript over %s', (transport) => {
  let server: Connection

  beforeAll(async () => {
    server = await connect(
      writeConfig({ mcpServers: { demo: DEMO_UPSTREAM }, backend: 'quickjs', limits: { timeoutMs: 2_000, maxToolCalls: 20 } }),
      transport,
    )
  })
  afterAll(async () => {
    await server?.close()
  })

  it('is listed with get_declarations and search_tools, and its description teaches the calling convention', async () => {
    const { tools } = await server.client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_declarations', 'run_javascript', 'search_tools'])
    const run = tools.find((tool) => tool.name === 'run_javascript')!
    expect(run.inputSchema.required).toEqual(['code'])
    expect(Object.keys(run.inputSchema.properties ?? {})).toEqual(['code', 'timeoutMs', 'memoryMb', 'maxToolCalls', 'maxOutputBytes'])
    expect(run.description).toContain('await demo.add(')
    expect(run.description).toContain('declare namespace demo {')
    expect(run.description).toContain('function list_items(args: ListItemsInput): Promise<unknown>;')
    expect(run.description).toMatch(/last expression/)
    expect(run.description).toMatch(/console\.log/)
    expect(run.description).toContain('2000 ms')
  })

  it('runs a program that calls two upstream tools and logs, returning the value and the logs', async () => {
    const result = await runJavaScript(
      server.client,
      [
        'const { sum } = await demo.add({ a: 2, b: 3 })',
        'console.log("sum is", sum)',
        'const items = await demo.list_items({ limit: 2 })',
        'console.warn(`${items.length} items`)',
        'return { sum, names: items.map((item) => item.name), greeting: await demo.greet({ name: "Ada" }) }',
      ].join('\n'),
    )
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(result.texts[0]!)).toEqual({ sum: 5, names: ['apple', 'pear'], greeting: 'Hello, Ada!' })
    expect(result.texts[1]).toBe('console output:\nsum is 5\n[warn] 2 items')
  })

  it('sends progress notifications for console output and tool calls, all before the response, when the client asks for them', async () => {
    const code = [
      'console.log("starting")',
      'const { sum } = await demo.add({ a: 2, b: 3 })',
      'try { await demo.fail({ message: "no access" }) } catch {}',
      'console.warn("sum", sum)',
      'return sum',
    ].join('\n')
    const updates: Progress[] = []
    const wire = recordMessages(server.client)
    let result: CallToolResult
    try {
      result = (await server.client.callTool({ name: 'run_javascript', arguments: { code } }, undefined, {
        onprogress: (update) => updates.push(update),
      })) as CallToolResult
    } finally {
      wire.stop()
    }
    expect(result.isError).toBeFalsy()
    // On the wire, every notification comes before the response, in order.
    const { progress, responded } = progressBeforeResponse(wire.messages)
    expect(responded).toBe(true)
    expect(progress.map((update) => update.progress)).toEqual([1, 2, 3, 4, 5, 6])
    expect(progress.map((update) => update.message)).toEqual([
      'starting',
      expect.stringMatching(/^calling demo\.add \(\d+ bytes of arguments\)$/),
      expect.stringMatching(/^demo\.add answered in \d+ ms \(\d+ bytes\)$/),
      expect.stringMatching(/^calling demo\.fail /),
      expect.stringMatching(/^demo\.fail failed after \d+ ms \(threw\): no access$/),
      '[warn] sum 5',
    ])
    expect(progress.every((update) => !('total' in update))).toBe(true)
    // The SDK client hands them to onprogress, except any it read together with the response (typescript-sdk#2580).
    expect(progress.slice(0, updates.length)).toEqual(
      updates.map(({ progress: n, message }) => ({ progressToken: expect.anything() as unknown, progress: n, message })),
    )
  })

  it('sends progress while the program is still running: the client cancels on seeing the call start', async () => {
    // demo.slow waits 44 s: only progress delivered live lets the client cancel before that.
    // (A length no other test here uses, so the stderr lines of the tests below are their own.)
    const cancel = new AbortController()
    const messages: string[] = []
    const call = server.client.callTool({ name: 'run_javascript', arguments: { code: 'await demo.slow({ ms: 44000 })' } }, undefined, {
      signal: cancel.signal,
      onprogress: ({ message }) => {
        messages.push(message ?? '')
        if (message?.startsWith('calling demo.slow')) cancel.abort()
      },
    })
    await expect(call).rejects.toThrow()
    expect(messages).toEqual([expect.stringMatching(/^calling demo\.slow /)])
    // (Whether the upstream saw the call before its cancellation is a race; the test above covers that path.)
    expect((await runJavaScript(server.client, '"still serving"')).texts[0]).toBe('"still serving"')
  })

  it('accepts a fenced TypeScript program with a top-level return, and converts values JSON lacks', async () => {
    const code =
      '```ts\nconst echoed: { echoed: number[] } = await demo.echo({ value: [1, 2] })\nreturn { echoed, big: 2n ** 70n, when: new Date(0), pairs: new Map([["a", 1]]) }\n```'
    const result = await runJavaScript(server.client, code)
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(result.texts[0]!)).toEqual({
      echoed: { echoed: [1, 2] },
      big: '1180591620717411303424',
      when: '1970-01-01T00:00:00.000Z',
      pairs: [['a', 1]],
    })
  })

  it('says so when the program produces no value', async () => {
    const result = await runJavaScript(server.client, 'const x = 1')
    expect(result.isError).toBeFalsy()
    expect(result.texts[0]).toMatch(/^undefined \(the program produced no value/)
  })

  it('reports a guest error with its code, message, line, column and the logs before it', async () => {
    const result = await runJavaScript(server.client, 'console.log("before")\nconst user = undefined\nuser.name')
    expect(result.isError).toBe(true)
    const [error, logs] = result.texts
    expect(error).toMatch(/^RUNTIME_ERROR: TypeError: .*name/)
    // The column is the engine's: quickjs-ng points at the start of the expression, QuickJS 2025-09-13 at the property.
    expect(error).toMatch(/at line 3, column \d+/)
    expect(error).toContain('3 | user.name')
    expect(logs).toBe('console output:\nbefore')
  })

  it('reports a syntax error with its line', async () => {
    const result = await runJavaScript(server.client, 'const a = 1\nconst b = (\n')
    expect(result.isError).toBe(true)
    expect(result.texts[0]).toMatch(/^SYNTAX_ERROR: /)
    expect(result.texts[0]).toMatch(/at line [23]/)
  })

  it('turns an upstream isError result into an Error the guest can catch', async () => {
    const result = await runJavaScript(
      server.client,
      'let outcome = "not reached"\ntry {\n  await demo.fail({ message: "the disk is full" })\n} catch (error) {\n  outcome = `caught ${error.name}: ${error.message}`\n}\noutcome',
    )
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(result.texts[0]!)).toBe('caught Error: the disk is full')
  })

  it('fails the run when an upstream error is not caught', async () => {
    const result = await runJavaScript(server.client, 'await demo.fail({ message: "no access" })')
    expect(result.isError).toBe(true)
    expect(result.texts[0]).toMatch(/^RUNTIME_ERROR: Error: no access/)
  })

  it('checks arguments against the upstream input schema before calling it', async () => {
    const result = await runJavaScript(server.client, 'try { await demo.add({ a: "one" }) } catch (e) { return e.message }')
    expect(JSON.parse(result.texts[0]!)).toMatch(/Invalid arguments for tool demo\.add/)
  })

  it('returns a TIMEOUT error result for a program that runs too long, and keeps serving', async () => {
    const looping = await runJavaScript(server.client, 'console.log("started"); while (true) {}', { timeoutMs: 300 })
    expect(looping.isError).toBe(true)
    expect(looping.texts[0]).toMatch(/^TIMEOUT: /)
    expect(looping.texts[0]).toContain('it may be raised up to 2000')
    expect(looping.texts[1]).toBe('console output:\nstarted')

    const waiting = await runJavaScript(server.client, 'await demo.slow({ ms: 60000 })', { timeoutMs: 300 })
    expect(waiting.texts[0]).toMatch(/^TIMEOUT: /)
    await eventually(() => server.stderr().includes('[demo] slow: cancelled before 60000 ms'), 'the upstream to see the cancellation')

    const next = await runJavaScript(server.client, '(await demo.add({ a: 20, b: 22 })).sum')
    expect(next.isError).toBeFalsy()
    expect(next.texts[0]).toBe('42')
  })

  it('aborts the run and cancels upstream calls when the client cancels its request', async () => {
    const cancel = new AbortController()
    const call = server.client.callTool({ name: 'run_javascript', arguments: { code: 'await demo.slow({ ms: 45000 })' } }, undefined, {
      signal: cancel.signal,
    })
    // Cancel only once the program is waiting on the upstream, so the test means what it says.
    await eventually(() => server.stderr().includes('[demo] slow: waiting 45000 ms'), 'the upstream call to start')
    cancel.abort()
    await expect(call).rejects.toThrow()
    await eventually(() => server.stderr().includes('[demo] slow: cancelled before 45000 ms'), 'the upstream to see the cancellation')
    const next = await runJavaScript(server.client, '"still serving"')
    expect(next.texts[0]).toBe('"still serving"')
  })

  it('lowers per-call limits to the config ceiling, and says so', async () => {
    const result = await runJavaScript(server.client, 'while (true) {}', { timeoutMs: 600_000 })
    expect(result.isError).toBe(true)
    expect(result.texts[0]).toMatch(/^TIMEOUT: /)
    expect(result.texts[0]).toContain('timeoutMs is 2000, the most this server allows')
    expect(result.texts.at(-1)).toBe('note: timeoutMs 600000 was lowered to 2000, the most this server allows')

    const calls = await runJavaScript(server.client, 'for (let i = 0; i < 25; i++) await demo.pid({})', { maxToolCalls: 1_000 })
    expect(calls.texts[0]).toMatch(/^TOOL_CALL_LIMIT: /)
    expect(calls.texts.at(-1)).toBe('note: maxToolCalls 1000 was lowered to 20, the most this server allows')
  })

  it('applies a per-call limit below the ceiling', async () => {
    const result = await runJavaScript(server.client, 'await demo.pid({}); await demo.pid({}); "two calls"', { maxToolCalls: 1 })
    expect(result.isError).toBe(true)
    expect(result.texts[0]).toMatch(/^TOOL_CALL_LIMIT: /)
    expect(result.texts[0]).toContain('it may be raised up to 20')
  })

  it('refuses limits below what cordon accepts, through the tool input schema', async () => {
    const result = await runJavaScript(server.client, '1', { memoryMb: 1 })
    expect(result.isError).toBe(true)
    expect(result.texts.join('\n')).toMatch(/memoryMb/)
  })
})
