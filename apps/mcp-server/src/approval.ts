import { randomBytes } from 'node:crypto'
import type { DurableOptions } from '@cordon/core'
import type { Config } from './config-schema.js'
import type { NeedsApproval } from './host-tools.js'
import { ConfigError } from './load-config.js'

/** The environment variable with the key that signs continuations (shared by replicas, kept across restarts). */
export const DURABLE_KEY_VAR = 'CORDON_MCP_DURABLE_KEY'

/** Which upstream tools need a person's approval, from the config; undefined when none do. */
export function approvalRule(config: Pick<Config, 'mcpServers'>): NeedsApproval | undefined {
  const rules = new Map<string, true | ReadonlySet<string>>()
  for (const [name, entry] of Object.entries(config.mcpServers)) {
    if (entry.disabled || entry.needsApproval === false) continue
    if (entry.needsApproval === true) rules.set(name, true)
    else if (entry.needsApproval.length > 0) rules.set(name, new Set(entry.needsApproval))
  }
  if (rules.size === 0) return undefined
  return (upstream, tool) => {
    const rule = rules.get(upstream)
    return rule === true || (rule !== undefined && rule.has(tool))
  }
}

/**
 * The sandbox's durable keys: CORDON_MCP_DURABLE_KEY when set (every replica needs the same one),
 * else a random key of this process, so a continuation resumes only here and until it exits.
 */
export function durableOptions(env: NodeJS.ProcessEnv = process.env): { options: DurableOptions; fromEnvironment: boolean } {
  const key = env[DURABLE_KEY_VAR]
  const claim = singleUse(CONTINUATION_MAX_AGE_MS)
  const options = { maxAgeMs: CONTINUATION_MAX_AGE_MS, claim }
  if (key === undefined || key === '') return { options: { keys: [randomBytes(32)], ...options }, fromEnvironment: false }
  if (Buffer.byteLength(key) < 32) throw new ConfigError(`${DURABLE_KEY_VAR} must be at least 32 bytes (e.g. openssl rand -hex 32)`)
  return { options: { keys: [key], ...options }, fromEnvironment: true }
}

const CONTINUATION_MAX_AGE_MS = 24 * 60 * 60 * 1000

/**
 * Each continuation resumes once in this process, so a model cannot approve one call twice by
 * calling resume_javascript again. Ids are forgotten once their continuations have expired.
 */
function singleUse(maxAgeMs: number): (id: string) => boolean {
  const claimed = new Map<string, number>()
  return (id) => {
    const now = Date.now()
    for (const [old, at] of claimed) {
      if (now - at <= maxAgeMs) break
      claimed.delete(old)
    }
    if (claimed.has(id)) return false
    claimed.set(id, now)
    return true
  }
}
