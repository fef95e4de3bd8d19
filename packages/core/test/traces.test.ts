import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { context, trace, SpanStatusCode } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { createSandbox, isSandboxError } from '../src/index.js'
import type { RunEvent, ToolSet } from '../src/index.js'
import { loadOtelApi, resetOtelApi } from '../src/trace/otel-api.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
trace.setGlobalTracerProvider(provider)

const sandbox = createSandbox(createVmBackend())
afterAll(async () => {
  await sandbox.dispose()
  trace.disable()
  context.disable()
})
beforeEach(() => exporter.reset())

const tools: ToolSet = {
  'db.find': { execute: (args: { id: number }) => ({ id: args.id, name: 'secret name' }) },
  'db.fail': {
    execute: () => {
      throw new Error('secret failure')
    },
  },
}

const CODE = `const row = await db.find({ id: 7 })
try { await db.fail() } catch {}
console.log('done')
return row.name`

const spans = () => exporter.getFinishedSpans()
const named = (name: string) => spans().filter((span) => span.name === name)
const attributeText = (span: ReadableSpan) => JSON.stringify(span.attributes) + JSON.stringify(span.status)

describe('traces', () => {
  it("hands the backend the run span's traceparent, and none when the run is not traced", async () => {
    const seen: (string | undefined)[] = []
    const inner = createVmBackend()
    const backend = {
      ...inner,
      execute: (request: Parameters<typeof inner.execute>[0]) => (seen.push(request.traceparent), inner.execute(request)),
    }
    const own = createSandbox(backend)
    expect((await own.run('1')).ok).toBe(true)
    expect((await own.run('1', { trace: false })).ok).toBe(true)
    await own.dispose()
    const { traceId, spanId } = named('cordon.run')[0]!.spanContext()
    expect(seen).toEqual([`00-${traceId}-${spanId}-01`, undefined])
  })

  it('makes a cordon.run span and a child span per tool call, with names, codes, counts and sizes but no code or values', async () => {
    const result = await sandbox.run(CODE, { tools })
    expect(result.ok).toBe(true)
    const [run] = named('cordon.run')
    expect(run).toBeDefined()
    expect(run!.attributes).toMatchObject({
      'cordon.backend': 'vm-reference',
      'cordon.result.code': 'OK',
      'cordon.run.tool_calls': 2,
      'cordon.run.log_entries': 1,
      'cordon.run.logs_dropped': 0,
      'cordon.run.session': false,
      'cordon.code.bytes': new TextEncoder().encode(CODE).length,
    })
    expect(run!.status.code).toBe(SpanStatusCode.UNSET)
    const [find] = named('cordon.tool db.find')
    const [fail] = named('cordon.tool db.fail')
    expect(find!.attributes).toMatchObject({ 'cordon.tool.name': 'db.find', 'cordon.tool.call_id': 1 })
    expect(find!.attributes['cordon.tool.args.bytes']).toBeGreaterThan(0)
    expect(find!.attributes['cordon.tool.result.bytes']).toBeGreaterThan(0)
    expect(fail!.attributes).toMatchObject({ 'cordon.tool.name': 'db.fail', 'cordon.tool.error.reason': 'threw' })
    expect(fail!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'threw' })
    for (const tool of [find!, fail!]) {
      expect(tool.parentSpanContext?.spanId).toBe(run!.spanContext().spanId)
      expect(tool.spanContext().traceId).toBe(run!.spanContext().traceId)
    }
    for (const span of spans()) expect(attributeText(span)).not.toMatch(/secret|db\.find\(|"id":7/)
  })

  it('the run span is a child of the span active where run was called', async () => {
    const parent = trace.getTracer('test').startSpan('request')
    await context.with(trace.setSpan(context.active(), parent), () => sandbox.run('1 + 1'))
    parent.end()
    const [run] = named('cordon.run')
    expect(run!.parentSpanContext?.spanId).toBe(parent.spanContext().spanId)
    expect(run!.spanContext().traceId).toBe(parent.spanContext().traceId)
  })

  it('a failed run ends its span with status ERROR and the code only; includeValues adds the code, values and messages', async () => {
    await sandbox.run('throw new Error("secret oops")')
    const [failed] = named('cordon.run')
    expect(failed!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'RUNTIME_ERROR' })
    expect(failed!.attributes['cordon.result.code']).toBe('RUNTIME_ERROR')
    exporter.reset()

    await sandbox.run(CODE, { tools, trace: { includeValues: true } })
    const [run] = named('cordon.run')
    expect(run!.attributes).toMatchObject({ 'cordon.code': CODE, 'cordon.run.value': '"secret name"' })
    expect(named('cordon.tool db.find')[0]!.attributes).toMatchObject({
      'cordon.tool.args': '{"id":7}',
      'cordon.tool.result': '{"id":7,"name":"secret name"}',
    })
    expect(named('cordon.tool db.fail')[0]!.status.message).toBe('secret failure')
  })

  it('includeValues for traces does not put values in the events of a listener that did not ask for them', async () => {
    const events: RunEvent[] = []
    await sandbox.run(CODE, { tools, trace: { includeValues: true }, onEvent: (event) => void events.push(event) })
    const start = events.find((event) => event.type === 'tool-start')
    const end = events.find((event) => event.type === 'tool-end')
    expect(start).toBeDefined()
    expect(start).not.toHaveProperty('args')
    expect(end).not.toHaveProperty('result')
    expect(events.at(-1)?.type).toBe('result')
  })

  it('trace: false makes no spans; sandbox defaults apply to every run, sessions and refused runs included', async () => {
    await sandbox.run('1', { trace: false })
    expect(spans()).toEqual([])
    const quiet = createSandbox(createVmBackend(), { trace: false })
    await quiet.run('1')
    await quiet.dispose()
    expect(spans()).toEqual([])

    const limited = createSandbox(createVmBackend(), { maxConcurrentRuns: 1 })
    let release!: () => void
    const held = limited.run('await hold.wait()', {
      tools: { 'hold.wait': { execute: () => new Promise<void>((resolve) => (release = resolve)) } },
    })
    await new Promise<void>((resolve) => {
      const poll = () => (release === undefined ? setTimeout(poll, 1) : resolve())
      poll()
    })
    const busy = await limited.run('1')
    expect(busy.ok).toBe(false)
    release()
    await held
    const session = await limited.createSession()
    await session.run('2')
    await limited.dispose()
    const codes = named('cordon.run').map((span) => [span.attributes['cordon.result.code'], span.attributes['cordon.run.session']])
    expect(codes).toEqual([
      ['BUSY', false],
      ['OK', false],
      ['OK', true],
    ])
  })

  it('checks the trace option (INVALID_OPTIONS)', async () => {
    for (const bad of ['yes', { includeValues: 1 }, { values: true }, null]) {
      await expect(sandbox.run('1', { trace: bad as never })).rejects.toSatisfy((error) => isSandboxError(error, 'INVALID_OPTIONS'))
    }
    expect(() => createSandbox(createVmBackend(), { trace: 'on' as never })).toThrow(/trace must be a boolean/)
  })

  it('@opentelemetry/api is not even imported until an application registered it', async () => {
    const key = Symbol.for('opentelemetry.js.api.1')
    const registry = globalThis as unknown as Record<symbol, unknown>
    const registered = registry[key]
    expect(registered).toBeDefined()
    let imports = 0
    const importer = () => {
      imports++
      return import('@opentelemetry/api')
    }
    resetOtelApi()
    delete registry[key]
    try {
      await expect(loadOtelApi(importer)).resolves.toBeUndefined()
      expect(imports).toBe(0)
      // Registered after a first run: the next one loads it.
      registry[key] = registered
      await expect(loadOtelApi(importer)).resolves.toBeDefined()
      expect(imports).toBe(1)
    } finally {
      registry[key] = registered
      resetOtelApi()
    }
  })

  it('without @opentelemetry/api installed, runs are not traced and nothing fails', async () => {
    resetOtelApi()
    try {
      await expect(loadOtelApi(() => Promise.reject(new Error("Cannot find package '@opentelemetry/api'")))).resolves.toBeUndefined()
      const result = await sandbox.run('21 * 2')
      expect(result.ok && result.value).toBe(42)
      expect(spans()).toEqual([])
    } finally {
      resetOtelApi()
    }
  })
})
