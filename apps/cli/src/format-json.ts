import type { RunResult } from '@cordon/core'

/**
 * `--json`: exactly one JSON document on stdout — the RunResult plus `backend` — or, when the
 * program never ran (usage error, no backend), `{ ok: false, error: { code, message, fix? },
 * logs: [], backend }` without stats.
 */
export function runResultDocument(result: RunResult, backend: string): string {
  const doc = result.ok
    ? { ok: true, backend, value: toJsonValue(result.value), logs: result.logs, stats: result.stats }
    : { ok: false, backend, error: result.error, logs: result.logs, stats: result.stats }
  return JSON.stringify(doc, null, 2)
}

export function failureDocument(code: string, message: string, fix: string | undefined, backend: string | null): string {
  return JSON.stringify({ ok: false, backend, error: fix === undefined ? { code, message } : { code, message, fix }, logs: [] }, null, 2)
}

/**
 * The value model is wider than JSON. Without a loss that would surprise: `undefined` and
 * non-finite numbers become null (JSON.stringify's own rule; `undefined` object properties
 * are left out), BigInt a decimal string, Date its ISO string (null when invalid), Map an
 * array of [key, value] pairs, Set and typed arrays arrays, ArrayBuffer an array of bytes,
 * an error `{ name, message }`.
 */
export function toJsonValue(value: unknown): unknown {
  if (value === undefined || value === null) return null
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? (Object.is(value, -0) ? 0 : value) : null
    case 'bigint':
      return value.toString()
    case 'string':
    case 'boolean':
      return value
    case 'object':
      break
    default:
      return null
  }
  if (Array.isArray(value)) return value.map(toJsonValue)
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (value instanceof Map) return [...value].map(([k, v]) => [toJsonValue(k), toJsonValue(v)])
  if (value instanceof Set) return [...value].map(toJsonValue)
  if (value instanceof ArrayBuffer) return [...new Uint8Array(value)]
  if (ArrayBuffer.isView(value)) {
    return Array.from(value as unknown as ArrayLike<number | bigint>, (n) => toJsonValue(n))
  }
  if (value instanceof Error) return { name: value.name, message: value.message }
  // fromEntries defines own properties: a guest's `__proto__` key stays an ordinary key.
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === undefined ? [] : [[k, toJsonValue(v)]])))
}
