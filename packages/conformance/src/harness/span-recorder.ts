/**
 * A tracer provider that keeps the spans it is asked for, written against `@opentelemetry/api`
 * alone (no SDK), so the traces checks see exactly what core asks of whatever provider the
 * application registers: names, attributes, status, parent, and that each span ends once.
 */
import {
  context,
  trace,
  type Attributes,
  type AttributeValue,
  type Context,
  type Span,
  type SpanContext,
  type SpanStatus,
  type Tracer,
} from '@opentelemetry/api'

export interface RecordedSpan {
  name: string
  spanId: string
  parentSpanId: string | undefined
  attributes: Record<string, AttributeValue>
  status: SpanStatus | undefined
  ends: number
}

let nextId = 1

function recordingSpan(record: RecordedSpan, traceId: string): Span {
  const spanContext: SpanContext = { traceId, spanId: record.spanId, traceFlags: 1 }
  const span: Span = {
    spanContext: () => spanContext,
    setAttribute: (key, value) => ((record.attributes[key] = value), span),
    setAttributes: (attributes: Attributes) => {
      for (const [key, value] of Object.entries(attributes)) if (value !== undefined) record.attributes[key] = value
      return span
    },
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus: (status) => ((record.status = status), span),
    updateName: (name) => ((record.name = name), span),
    end: () => void record.ends++,
    isRecording: () => record.ends === 0,
    recordException: () => undefined,
  }
  return span
}

/** Registers the recorder as the global tracer provider while `body` runs, then removes it. */
export async function withSpanRecorder<T>(body: (spans: RecordedSpan[]) => Promise<T>): Promise<T> {
  const spans: RecordedSpan[] = []
  const tracer: Tracer = {
    startSpan(name, options = {}, parentContext: Context = context.active()) {
      const parent = trace.getSpanContext(parentContext)
      const record: RecordedSpan = {
        name,
        spanId: (nextId++).toString(16).padStart(16, '0'),
        parentSpanId: parent?.spanId,
        attributes: {},
        status: undefined,
        ends: 0,
      }
      for (const [key, value] of Object.entries(options.attributes ?? {})) if (value !== undefined) record.attributes[key] = value
      spans.push(record)
      return recordingSpan(record, parent?.traceId ?? '0'.repeat(31) + '1')
    },
    startActiveSpan: () => {
      throw new Error('core does not use startActiveSpan')
    },
  }
  trace.setGlobalTracerProvider({ getTracer: () => tracer })
  try {
    return await body(spans)
  } finally {
    trace.disable()
  }
}
