/**
 * Denial of service and limit abuse: each case ends with the right code within its deadline
 * + `timeoutSlackMs` (or its memory cap), the host does none of the work the limits forbid,
 * and the same sandbox runs the next program. Cases already in `limits`, `tools` and `logs`
 * (plain loops, microtask floods, heap growth, maxToolCalls, a log flood) are not repeated.
 */
import type { ConformanceCheck } from '../types.js'
import { callbackDosChecks } from './dos-callbacks.js'
import { engineDosChecks } from './dos-engine.js'
import { floodDosChecks } from './dos-floods.js'

export const dosChecks: readonly ConformanceCheck[] = [...callbackDosChecks, ...engineDosChecks, ...floodDosChecks]
