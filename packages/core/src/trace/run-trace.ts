import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api'
import type { RunResult } from '../result.js'
import type { RunEvent, RunEventListener } from '../run-events.js'
import { utf8Length } from '../wire.js'
import type { OtelApi } from './otel-api.js'
import type { ResolvedTrace } from './trace-options.js'

/** Longest text a span attribute gets with `includeValues` (the code, a value, a message). */
const MAX_VALUE_CHARS = 4096

export const TRACER_NAME = '@cordon/core'

export interface RunTraceStart {
  backend: string
  code: string
  session: boolean
  /** `performance.now()` when `run` was called: the span starts there. */
  startedPerf: number
}

/**
 * The spans of one run: `cordon.run`, a child of whatever span is active where `run` was called,
 * and one `cordon.tool <name>` child of it per tool call, built from the run's events (the same
 * start, end and error the `onEvent` listener gets, at the same times).
 */
export class RunTrace {
  private readonly runContext: Context
  private readonly calls = new Map<number, Span>()

  private constructor(
    private readonly api: OtelApi,
    private readonly tracer: Tracer,
    private readonly span: Span,
    private readonly options: ResolvedTrace,
    private readonly startedPerf: number,
  ) {
    this.runContext = api.trace.setSpan(api.context.active(), span)
  }

  /** Starts the run's span; undefined when nothing records it (no tracer provider registered). */
  static start(api: OtelApi, options: ResolvedTrace, run: RunTraceStart): RunTrace | undefined {
    const tracer = api.trace.getTracer(TRACER_NAME)
    const attributes: Attributes = {
      'cordon.backend': run.backend,
      'cordon.run.session': run.session,
      'cordon.code.bytes': utf8Length(run.code),
    }
    if (options.includeValues) attributes['cordon.code'] = cut(run.code)
    const span = tracer.startSpan('cordon.run', { attributes, startTime: epochMs(run.startedPerf, 0) }, api.context.active())
    if (!span.isRecording()) return undefined
    return new RunTrace(api, tracer, span, options, run.startedPerf)
  }

  /** The run span's W3C trace context (`traceparent`), for a backend whose far side logs or traces the run. */
  get traceparent(): string {
    const { traceId, spanId, traceFlags } = this.span.spanContext()
    return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`
  }

  /** Whether spans want the tool calls' arguments and results in the events. */
  get includeValues(): boolean {
    return this.options.includeValues
  }

  /** The listener the run's events go to: the trace's own, then the host's `onEvent`. */
  listener(hostListener: RunEventListener | undefined, hostWantsValues: boolean): RunEventListener {
    return (event) => {
      try {
        this.record(event)
      } finally {
        if (hostListener !== undefined) hostListener(hostWantsValues ? event : withoutValues(event))
      }
    }
  }

  private record(event: RunEvent): void {
    const at = epochMs(this.startedPerf, event.atMs)
    if (event.type === 'tool-start') {
      const attributes: Attributes = {
        'cordon.tool.name': event.tool,
        'cordon.tool.call_id': event.callId,
        'cordon.tool.args.bytes': event.argsBytes,
      }
      if (this.options.includeValues && 'args' in event) attributes['cordon.tool.args'] = json(event.args)
      this.calls.set(event.callId, this.tracer.startSpan(`cordon.tool ${event.tool}`, { attributes, startTime: at }, this.runContext))
    } else if (event.type === 'tool-end') {
      const span = this.take(event.callId)
      span?.setAttribute('cordon.tool.result.bytes', event.resultBytes)
      if (this.options.includeValues && 'result' in event) span?.setAttribute('cordon.tool.result', json(event.result))
      span?.end(at)
    } else if (event.type === 'tool-error') {
      const span = this.take(event.callId)
      span?.setAttribute('cordon.tool.error.reason', event.reason)
      span?.setStatus({
        code: this.api.SpanStatusCode.ERROR,
        message: this.options.includeValues ? cut(event.error.message) : event.reason,
      })
      span?.end(at)
    }
  }

  private take(callId: number): Span | undefined {
    const span = this.calls.get(callId)
    this.calls.delete(callId)
    return span
  }

  /** Ends the run's span with what the run ended with. */
  end(result: RunResult): void {
    const { stats } = result
    const attributes: Attributes = {
      'cordon.result.code': result.ok ? 'OK' : result.error.code,
      'cordon.run.wall_ms': stats.wallMs,
      'cordon.run.tool_calls': stats.toolCalls,
      'cordon.run.log_entries': result.logs.length,
      'cordon.run.logs_dropped': stats.logsDropped,
    }
    if (stats.cpuMs !== undefined) attributes['cordon.run.cpu_ms'] = stats.cpuMs
    if (stats.heapBytes !== undefined) attributes['cordon.run.heap_bytes'] = stats.heapBytes
    if (result.ok && this.options.includeValues) attributes['cordon.run.value'] = json(result.value)
    this.span.setAttributes(attributes)
    // A pause is not a failure: its span keeps the unset status a success has.
    if (!result.ok && result.interrupted !== true) {
      this.span.setStatus({
        code: this.api.SpanStatusCode.ERROR,
        message: this.options.includeValues ? cut(`${result.error.code}: ${result.error.message}`) : result.error.code,
      })
    }
    for (const span of this.calls.values()) span.end()
    this.calls.clear()
    this.span.end(epochMs(this.startedPerf, stats.wallMs))
  }

  /** The run threw on the host (a bug, or a misuse found late): the span ends as an error. */
  fail(error: unknown): void {
    this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' })
    this.span.end()
  }
}

function epochMs(startedPerf: number, atMs: number): number {
  return performance.timeOrigin + startedPerf + atMs
}

function withoutValues(event: RunEvent): RunEvent {
  if (event.type === 'tool-start' && 'args' in event) {
    const { args: _args, ...rest } = event
    return rest
  }
  if (event.type === 'tool-end' && 'result' in event) {
    const { result: _result, ...rest } = event
    return rest
  }
  return event
}

function json(value: unknown): string {
  try {
    return cut(JSON.stringify(value) ?? 'undefined')
  } catch {
    return '[not JSON]'
  }
}

function cut(text: string): string {
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text
}
