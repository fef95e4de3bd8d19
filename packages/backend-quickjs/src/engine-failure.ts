import type { RunError } from '@cordon/core'
import type { EngineContext, EngineHandle } from './engine-api.js'

/** What the engine threw, read from a QuickJS handle without trusting it. */
export interface ThrownInfo {
  name?: string
  message: string
  stack?: string
  lineNumber?: number
}

/**
 * A host exception thrown while WASM ran: the guest recursed through a path QuickJS's own stack
 * check does not see (JSON, RegExp, parser) until the host's stack ran out. V8 and JSC say
 * "Maximum call stack size exceeded", SpiderMonkey "too much recursion".
 */
export function isHostStackOverflow(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  return (error instanceof RangeError || error.name === 'InternalError') && /call stack|too much recursion/i.test(error.message)
}

/**
 * Reads name, message and position of a thrown value. The errors reaching the host come from
 * the engine (syntax errors, interrupts, out-of-memory) or from the guest runtime, whose code
 * catches everything the guest throws; so property reads run no guest code in practice, and
 * the interrupt handler still bounds them if they did.
 */
export function readThrown(
  context: Pick<EngineContext, 'typeof' | 'getString' | 'getNumber' | 'getProp'>,
  handle: EngineHandle,
): ThrownInfo {
  const kind = context.typeof(handle)
  if (kind === 'string') return { message: context.getString(handle) }
  if (kind === 'number') return { message: String(context.getNumber(handle)) }
  if (kind !== 'object') return { message: kind }
  // `null` is an object to typeof; QuickJS throws it when it cannot even allocate an error. Reading
  // a property of it fails (the handle holds QuickJS's exception marker, typeof 'unknown'), which
  // a property of an error never does. (SameValue would say it directly, but the quickjs-ng builds
  // do not expose it, and getLength answers undefined for every object once memory has grown.)
  let unreadable = false
  const prop = (key: string): string | number | undefined =>
    context.getProp(handle, key).consume((value) => {
      const type = context.typeof(value)
      if (type === 'unknown') unreadable = true
      if (type === 'string') return context.getString(value)
      if (type === 'number') return context.getNumber(value)
      return undefined
    })
  const name = prop('name')
  if (unreadable) return { message: 'null' }
  const message = prop('message')
  const stack = prop('stack')
  const lineNumber = prop('lineNumber')
  return {
    name: typeof name === 'string' ? name : undefined,
    message: typeof message === 'string' ? message : '',
    stack: typeof stack === 'string' ? stack : undefined,
    lineNumber: typeof lineNumber === 'number' ? lineNumber : undefined,
  }
}

/** QuickJS's uncatchable error for an interrupt handler that returned true. */
export function isInterrupted(info: ThrownInfo): boolean {
  return info.name === 'InternalError' && info.message === 'interrupted'
}

/** QuickJS's error for a failed allocation (or `null` when even that error could not be made). */
export function isOutOfMemory(info: ThrownInfo): boolean {
  return (info.name === 'InternalError' && info.message === 'out of memory') || (info.name === undefined && info.message === 'null')
}

/** A compile error in script coordinates: the position QuickJS reports (`guest.js:LINE:COL` in its stack). */
export function syntaxError(info: ThrownInfo, filename: string): RunError {
  const error: RunError = { code: 'SYNTAX_ERROR', name: info.name ?? 'SyntaxError', message: info.message }
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const match = new RegExp(`${escaped}:(\\d+)(?::(\\d+))?`).exec(info.stack ?? '')
  if (match) {
    error.line = Number(match[1])
    if (match[2] !== undefined) error.column = Number(match[2])
  } else if (info.lineNumber !== undefined) {
    error.line = info.lineNumber
  }
  return error
}

/** A host-side failure's message; Emscripten throws plain objects such as ExitStatus { message }. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message
  const message = (error as { message?: unknown } | null)?.message
  return typeof message === 'string' ? message : String(error)
}
