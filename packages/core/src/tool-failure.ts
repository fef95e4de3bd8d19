/**
 * What a guest sees of a tool that failed: the error's `name`, `message` and a string `code`,
 * as the tool threw them, and nothing else of the host's error (no stack, no object). The same
 * three fields travel every path to the guest — the in-process relay, engine children and
 * servers, the durable ledger — as the JSON text `toolFailurePayload` writes.
 */
export interface ToolFailure {
  name: string
  message: string
  code?: string
}

/** Names and codes longer than this are cut: they are labels, not data. */
const MAX_LABEL_CHARS = 200

function label(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, MAX_LABEL_CHARS) : undefined
}

function field(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key]
  } catch {
    // A getter that throws is no name, message or code.
    return undefined
  }
}

/**
 * The failure of a thrown value: an Error's `name` (whatever the tool or its class set; `Error`
 * when none), `message` and string `code`; the same fields of a plain `{ name, message, code }`
 * object; a thrown string, number or boolean as the message of an `Error`.
 */
export function toolFailureOf(thrown: unknown): ToolFailure {
  if (typeof thrown === 'object' && thrown !== null) {
    const message = field(thrown, 'message')
    const failure: ToolFailure = {
      name: label(field(thrown, 'name')) ?? 'Error',
      message: typeof message === 'string' ? message : 'tool failed',
    }
    const code = label(field(thrown, 'code'))
    if (code !== undefined) failure.code = code
    return failure
  }
  const primitive = typeof thrown === 'string' || typeof thrown === 'number' || typeof thrown === 'boolean' || typeof thrown === 'bigint'
  return { name: 'Error', message: primitive ? String(thrown) : 'tool failed' }
}

/** The JSON text of a failure, as the guest runtime reads it. */
export function toolFailurePayload(thrown: unknown): string {
  return JSON.stringify(toolFailureOf(thrown))
}

/** A payload read back (from a child, a server or a ledger: untrusted text), with the same defaults. */
export function toolFailureFromPayload(payload: string): ToolFailure {
  let parsed: unknown
  try {
    parsed = JSON.parse(payload)
  } catch {
    parsed = undefined
  }
  return typeof parsed === 'object' && parsed !== null ? toolFailureOf(parsed) : { name: 'Error', message: 'the tool failed' }
}

const BUILT_IN: Record<string, new (message: string) => Error> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
}

/**
 * A host-side error that carries a failure on to where a guest will see it (the far side of a
 * channel, a replayed call): a built-in error class for a built-in name, else an `Error` with
 * the name set, and the code when there is one.
 */
export function toolFailureError(failure: ToolFailure): Error {
  const Ctor = Object.hasOwn(BUILT_IN, failure.name) ? BUILT_IN[failure.name]! : Error
  const error = new Ctor(failure.message)
  if (error.name !== failure.name) error.name = failure.name
  if (failure.code !== undefined) Object.assign(error, { code: failure.code })
  return error
}
