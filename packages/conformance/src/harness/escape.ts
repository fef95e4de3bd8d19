import type { RunOptions, RunResult, Sandbox, ToolSet } from '@cordon/core'
import { ESCAPE_MARKER, GUEST_ATTACK_SOURCE, GUEST_ESCAPE_SOURCE, REACHED_PREFIX } from './guest-snippets.js'
import { plantCanary } from './host-canary.js'
import { summarize, timedRun } from './run.js'

const host = globalThis as Record<string, unknown>

/**
 * Runs an attack program (GUEST_ESCAPE_SOURCE and GUEST_ATTACK_SOURCE prepended, the
 * `__canary` global telling it where the host secrets are) and fails when it reached the
 * host: it set ESCAPE_MARKER on the host's global, a host secret shows up in the result,
 * the logs or tool arguments, or it logged a REACHED_PREFIX line. Any RunResult is
 * accepted otherwise; it is returned for the caller's own checks.
 */
export async function attemptEscape(sandbox: Sandbox, body: string, options: RunOptions = {}, budgetMs?: number): Promise<RunResult> {
  const canary = await plantCanary()
  const seenArgs: string[] = []
  delete host[ESCAPE_MARKER]
  let marker: unknown
  let result: RunResult
  try {
    const code = `${GUEST_ESCAPE_SOURCE}\n${GUEST_ATTACK_SOURCE}\n${body}`
    const run = { ...options, tools: recording(options.tools, seenArgs), globals: { ...options.globals, __canary: canary.where } }
    result = (await timedRun(sandbox, code, run, budgetMs)).result
  } finally {
    marker = host[ESCAPE_MARKER]
    delete host[ESCAPE_MARKER]
    await canary.remove()
  }
  if (marker !== undefined) throw new Error(`guest code set a global on the host: ${summarize(marker)}`)
  const leaks = canary.leaked([textOf(result), ...seenArgs].join('\n'))
  if (leaks.length > 0) throw new Error(`the guest read ${leaks.join(' and ')}: ${summarize(result)}`)
  const reached = result.logs.filter((entry) => entry.message.startsWith(REACHED_PREFIX))
  if (reached.length > 0) throw new Error(`the guest reached the host: ${reached.map((entry) => entry.message).join('; ')}`)
  return result
}

/** `attemptEscape` for a program that must run to its end and return '' (nothing reached). */
export async function expectNoEscape(sandbox: Sandbox, body: string, options?: RunOptions): Promise<void> {
  const result = await attemptEscape(sandbox, body, options)
  if (!result.ok) throw new Error(`the escape attempt should run to its end, got ${summarize(result)}`)
  if (result.value !== '') throw new Error(`the guest reached the host: ${String(result.value)}`)
}

/** The same tools, each keeping a text copy of its arguments for the canary scan. */
function recording(tools: ToolSet | undefined, seen: string[]): ToolSet | undefined {
  if (tools === undefined) return undefined
  const out: ToolSet = {}
  for (const [name, tool] of Object.entries(tools)) {
    out[name] = { ...tool, execute: (args, ctx) => (seen.push(textOf(args)), tool.execute(args, ctx)) }
  }
  return out
}

function textOf(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_, v: unknown) =>
        typeof v === 'bigint' ? String(v) : v instanceof Error ? `${v.name}: ${v.message}\n${v.stack}` : v,
      ) ?? String(value)
    )
  } catch {
    return String(value)
  }
}
