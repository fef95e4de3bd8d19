/**
 * OpenTelemetry spans (`trace` run option): with a tracer provider registered, each run is a
 * `cordon.run` span and each tool call a `cordon.tool <name>` child, the same on every backend,
 * carrying no code or values unless `trace: { includeValues: true }`.
 */
import { SpanStatusCode } from '@opentelemetry/api'
import type { ToolSet } from '@cordon/core'
import { withSpanRecorder, type RecordedSpan } from '../harness/span-recorder.js'
import { expectOk, expectError, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

const SECRET = 'do-not-record-7f3a'

const tools: ToolSet = {
  'db.find': { execute: (args: { id: number }) => ({ id: args.id, note: SECRET }) },
  'db.fail': {
    execute: () => {
      throw new Error(`failed with ${SECRET}`)
    },
  },
}

const PROGRAM = `const row = await db.find({ id: 1, q: '${SECRET}' })
try { await db.fail() } catch {}
console.log('${SECRET}')
return row.note`

function only(spans: readonly RecordedSpan[], name: string): RecordedSpan {
  if (spans.length === 0) {
    throw new Error('no span at all: @cordon/core could not import @opentelemetry/api; install it where core resolves it')
  }
  const found = spans.filter((span) => span.name === name)
  if (found.length !== 1) throw new Error(`expected one span named ${name}, got ${JSON.stringify(spans.map((s) => s.name))}`)
  return found[0]!
}

export const tracesChecks: readonly ConformanceCheck[] = [
  {
    group: 'traces',
    name: 'traces: a run span and a child span per tool call, each ended once, with backend, code, counts and sizes and no code or values',
    async run({ sandbox, backend }) {
      await withSpanRecorder(async (spans) => {
        expectSameValue(expectOk((await timedRun(sandbox, PROGRAM, { tools })).result), SECRET, 'the value')
        const run = only(spans, 'cordon.run')
        const find = only(spans, 'cordon.tool db.find')
        const fail = only(spans, 'cordon.tool db.fail')
        expectSameValue(
          [
            run.attributes['cordon.backend'],
            run.attributes['cordon.result.code'],
            run.attributes['cordon.run.tool_calls'],
            run.attributes['cordon.run.log_entries'],
          ],
          [backend.name, 'OK', 2, 1],
          'the run span: backend, result code, tool calls, log entries',
        )
        expectSameValue([find.parentSpanId, fail.parentSpanId], [run.spanId, run.spanId], 'the tool spans’ parent')
        expectSameValue(
          [find.attributes['cordon.tool.name'], fail.attributes['cordon.tool.error.reason']],
          ['db.find', 'threw'],
          'tool attributes',
        )
        if (
          typeof find.attributes['cordon.tool.args.bytes'] !== 'number' ||
          typeof find.attributes['cordon.tool.result.bytes'] !== 'number'
        ) {
          throw new Error(`the tool span has no sizes: ${JSON.stringify(find.attributes)}`)
        }
        expectSameValue(fail.status?.code, SpanStatusCode.ERROR, 'the failed call’s status')
        expectSameValue(
          spans.map((span) => span.ends),
          [1, 1, 1],
          'how often each span ended',
        )
        if (JSON.stringify(spans).includes(SECRET))
          throw new Error('a span holds code, an argument, a value or a message without includeValues')
      })
    },
  },
  {
    group: 'traces',
    name: 'traces: a failed run’s span has status ERROR and its code; includeValues records the code and values; trace: false records nothing',
    async run({ sandbox }) {
      await withSpanRecorder(async (spans) => {
        expectError((await timedRun(sandbox, `throw new Error('${SECRET}')`)).result, 'RUNTIME_ERROR')
        const failed = only(spans, 'cordon.run')
        expectSameValue([failed.status?.code, failed.status?.message], [SpanStatusCode.ERROR, 'RUNTIME_ERROR'], 'the failed run’s status')
        spans.length = 0
        expectOk((await timedRun(sandbox, PROGRAM, { tools, trace: { includeValues: true } })).result)
        expectSameValue(only(spans, 'cordon.run').attributes['cordon.code'], PROGRAM, 'the code with includeValues')
        expectSameValue(
          only(spans, 'cordon.tool db.find').attributes['cordon.tool.args'],
          `{"id":1,"q":"${SECRET}"}`,
          'the arguments with includeValues',
        )
        spans.length = 0
        expectOk((await timedRun(sandbox, '1', { trace: false })).result)
        expectSameValue(spans.length, 0, 'spans with trace: false')
      })
    },
  },
]
