// OpenTelemetry spans for a run and its tool calls. Any tracer provider works (this one keeps
// spans in memory to print them); without @opentelemetry/api installed, runs are not traced.
//   node examples/traces.mjs
import assert from 'node:assert/strict'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

const exporter = new InMemorySpanExporter()
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))

const sandbox = createSandbox(createQuickJSBackend())
const tools = { 'crm.findCustomer': { execute: ({ email }) => ({ email, plan: 'pro' }) } }

// The run's span is a child of whatever span is active where `run` is called.
const request = trace.getTracer('my-app').startSpan('POST /agent')
await context.with(trace.setSpan(context.active(), request), () =>
  sandbox.run('const c = await crm.findCustomer({ email: "ada@example.com" })\nreturn c.plan', { tools }),
)
request.end()
await sandbox.dispose()

const spans = exporter.getFinishedSpans()
const byId = new Map(spans.map((span) => [span.spanContext().spanId, span.name]))
for (const span of spans) {
  const attributes = Object.entries(span.attributes).filter(([key]) => key.startsWith('cordon.') && !key.endsWith('_ms'))
  console.log(`${span.name} (parent: ${byId.get(span.parentSpanContext?.spanId) ?? 'none'})`, Object.fromEntries(attributes))
}
// No email, no plan: values stay out of spans unless `trace: { includeValues: true }`.
assert.ok(!JSON.stringify(spans.map((span) => span.attributes)).includes('ada@example.com'))
