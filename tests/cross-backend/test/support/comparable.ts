/**
 * The part of a RunResult that must be the same on every backend: the value (in canonical form),
 * the logs, and the error's code, name, message and line. `stats` is per-backend by nature.
 *
 * Normalizations, each for a documented engine difference (listed in the package README):
 * - `error.column` is dropped: V8 (ivm, subprocess) points at the start of the throwing
 *   expression, QuickJS at the end of the call or the `new` expression.
 * - `error.stack` is dropped: each engine formats its own (`TypeError: m\n    at guest.js:2:5`
 *   against `    at <anonymous> (guest.js:2:9)`); its position is already compared as `line`.
 * - `error.message` is dropped for programs marked `engineMessage` (and only those): errors the
 *   engine itself raises word their messages its own way (V8 "Cannot read properties of null
 *   (reading 'x')", QuickJS "cannot read property 'x' of null"). Code, name and line still count.
 */
import type { RunResult } from '@cordon/core'
import { canonical, type Canonical } from './canonical.js'

export interface Comparable {
  ok: boolean
  value?: Canonical
  error?: { code: string; name?: string; message: string; line?: number }
  logs: { level: string; message: string }[]
}

export function comparable(result: RunResult, engineMessage = false): Comparable {
  const logs = result.logs.map(({ level, message }) => ({ level, message }))
  if (result.ok) return { ok: true, value: canonical(result.value), logs }
  const { code, name, message, line } = result.error
  const error: Comparable['error'] = { code, message: engineMessage ? '(engine message)' : message }
  if (name !== undefined) error.name = name
  if (line !== undefined) error.line = line
  return { ok: false, error, logs }
}
