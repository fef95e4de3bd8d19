import { SandboxError } from '../errors.js'
import { describeOptionValue, type ResolvedLimits } from '../limits.js'
import type { ToolRegistry } from '../tools/tool-registry.js'
import { encodeValue, isLimitMarker } from '../wire.js'
import { codeHash } from './code-hash.js'
import { openContinuation } from './continuation-seal.js'
import type { ContinuationState } from './continuation-state.js'
import type { ResolvedDurableOptions } from './durable-options.js'
import type { DurablePlan } from './durable-plan.js'
import type { ResumeOptions } from './resume-options.js'
import { RunLedger, type ResumeAnswer } from './run-ledger.js'
import { toolsFingerprint } from './tools-fingerprint.js'

const KNOWN_KEYS = new Set([
  'answer',
  'reject',
  'tools',
  'globals',
  'code',
  'modules',
  'signal',
  'onEvent',
  'includeToolValuesInEvents',
  'logArgs',
])

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', `resume options: ${message}`)
}

function refused(message: string): never {
  throw new SandboxError('INVALID_CONTINUATION', `continuation refused: ${message}`)
}

/** Host-misuse checks of the options that need no continuation. */
export function checkResumeOptions(options: unknown): ResumeOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    invalid(`must be an object { answer } or { reject }, got ${describeOptionValue(options)}`)
  }
  for (const key of Object.keys(options)) if (!KNOWN_KEYS.has(key)) invalid(`unknown option "${key}"`)
  const record = options as ResumeOptions
  const answers = ('answer' in record ? 1 : 0) + (record.reject !== undefined ? 1 : 0)
  if (answers !== 1) invalid('give exactly one of answer (the paused call resolves) and reject (it rejects)')
  if (record.reject !== undefined && typeof record.reject !== 'string' && !(record.reject instanceof Error)) {
    invalid('reject must be a string or an Error')
  }
  if (record.code !== undefined && typeof record.code !== 'string') invalid('code must be a string')
  if (record.reject === undefined) encodeAnswer(record.answer, MAX_ANSWER_BYTES)
  return record
}

/** Bounds the answer before any continuation is read; the paused run's own heap bound applies after. */
const MAX_ANSWER_BYTES = 1024 * 1024 * 1024

function encodeAnswer(answer: unknown, budget: number): string {
  try {
    return encodeValue(answer, budget, 'the answer')
  } catch (error) {
    invalid(isLimitMarker(error) ? `the answer is larger than the guest heap (${budget} bytes)` : (error as Error).message)
  }
}

/** The paused call's answer in the form the ledger gives it to the guest. */
function answerOf(options: ResumeOptions, limits: ResolvedLimits): ResumeAnswer {
  if (options.reject !== undefined) {
    return { ok: false, message: typeof options.reject === 'string' ? options.reject : options.reject.message }
  }
  return { ok: true, wire: encodeAnswer(options.answer, limits.memoryMb * 1024 * 1024) }
}

export interface ResumePlan {
  state: ContinuationState
  durable: DurablePlan
  /** This run's limits: the paused run's, with what is left of its time budget. */
  limits: ResolvedLimits
}

/**
 * Opens and checks a continuation against this resume's code, tools and modules (`modules`: the
 * hash of the resume's loaded modules, undefined without any, null when they failed to load and
 * the run will end with that error); throws INVALID_CONTINUATION.
 */
export async function prepareResume(
  continuation: unknown,
  options: ResumeOptions,
  registry: ToolRegistry,
  durable: ResolvedDurableOptions,
  modules?: string | null,
): Promise<ResumePlan> {
  const state = await openContinuation(continuation, durable)
  const hash = codeHash(state.code)
  if (hash !== state.codeHash) refused('its code does not match its code hash')
  if (options.code !== undefined && codeHash(options.code) !== hash) refused('it was made by other code than the code given')
  if (toolsFingerprint(registry) !== state.tools) {
    refused('the tools differ from those of the paused run (names, sync, inputSchema or needsApproval)')
  }
  if (modules !== null && modules !== state.modules) {
    refused(state.modules === undefined ? 'the paused run had no modules' : 'the modules differ from those of the paused run')
  }
  const answer = answerOf(options, state.limits)
  if (durable.claim !== undefined && (await durable.claim(state.id)) !== true) refused('it was already used (durable.claim)')
  const limits: ResolvedLimits = Object.freeze({ ...state.limits, timeoutMs: Math.max(1, state.limits.timeoutMs - state.usedMs) })
  const ledger = new RunLedger(state.ledger, { pausedAt: state.pausedAt, approval: state.approval, answer }, state.order)
  return {
    state,
    limits,
    durable: {
      options: durable,
      ledger,
      clock: state.clock,
      limits: state.limits,
      usedMs: state.usedMs,
      code: state.code,
      ...(state.modules === undefined ? {} : { modules: state.modules }),
    },
  }
}
