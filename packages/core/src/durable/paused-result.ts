import type { RunInterrupted, RunResult } from '../result.js'
import type { PausedCall } from './run-pauses.js'
import { sealContinuation } from './continuation-seal.js'
import type { DurablePlan } from './durable-plan.js'
import { toBase64Url } from './base64url.js'
import { codeHash } from './code-hash.js'

/**
 * The INTERRUPTED result of a paused run, with its signed continuation. `startedPerf` is when
 * this leg of the run started (performance.now()); `tools` the fingerprint of its tools.
 */
export async function pausedResult(
  durable: DurablePlan,
  paused: PausedCall,
  stopped: RunResult,
  startedPerf: number,
  tools: string,
): Promise<RunResult> {
  const pausedAt = durable.ledger.pausedAt!
  const usedMs = durable.usedMs + Math.ceil(performance.now() - startedPerf)
  const id = toBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(16)))
  const continuation = await sealContinuation(
    {
      v: 1,
      id,
      code: durable.code,
      codeHash: codeHash(durable.code),
      ...(durable.modules === undefined ? {} : { modules: durable.modules }),
      limits: durable.limits,
      usedMs,
      tools,
      ledger: durable.ledger.entries,
      order: durable.ledger.order,
      pausedAt,
      approval: paused.reason === 'approval',
      clock: durable.clock,
      issuedAt: Date.now(),
    },
    durable.options,
  )
  const result: RunInterrupted = {
    ok: false,
    interrupted: true,
    error: { code: 'INTERRUPTED', message: stopped.ok ? 'the run paused' : stopped.error.message },
    interrupt: { reason: paused.reason, tool: paused.tool, args: paused.args, payload: paused.payload },
    continuation,
    continuationId: id,
    logs: stopped.logs,
    stats: stopped.stats,
  }
  return result
}
