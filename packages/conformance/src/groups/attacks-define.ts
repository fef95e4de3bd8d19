import type { ErrorCode, RunOptions, ToolSet } from '@cordon/core'
import { attemptEscape, expectNoEscape } from '../harness/escape.js'
import { expectHealthy, summarize } from '../harness/run.js'
import type { CapabilityRequirement, ConformanceCheck } from '../types.js'

/** Tools every attack may use: a value, a rejection, a schema TypeError, a sync value. */
export function attackTools(): ToolSet {
  return {
    'ns.tool': { execute: () => ({ list: [1, 2], map: new Map([[1, 2]]), when: new Date(0), err: new Error('e') }) },
    'ns.fail': { execute: () => Promise.reject(new Error('tool failed')) },
    'ns.typed': { inputSchema: { type: 'string' }, execute: () => 1 },
  }
}

interface AttackSpec {
  /** The technique, then its public source in parentheses. */
  name: string
  /** Guest code; it ends with `return __report()`. */
  body: string
  options?: () => RunOptions
  requires?: CapabilityRequirement
  /**
   * The attack may end the run with one of these codes as well as with '' (a thrown value
   * ends it RUNTIME_ERROR); any other ending fails the check, like reaching the host.
   */
  orFails?: readonly ErrorCode[]
}

/** Attacks run with a short deadline: none needs long, and a stuck one should fail fast. */
const ATTACK_TIMEOUT_MS = 5_000

/** An attack check: nothing reached, the sandbox healthy after. */
export function attack(spec: AttackSpec): ConformanceCheck {
  return {
    group: 'attacks',
    name: `attack: ${spec.name}`,
    requires: spec.requires,
    async run({ sandbox }) {
      const options = { timeoutMs: ATTACK_TIMEOUT_MS, tools: attackTools(), ...spec.options?.() }
      if (spec.orFails === undefined) await expectNoEscape(sandbox, spec.body, options)
      else {
        const result = await attemptEscape(sandbox, spec.body, options)
        if (result.ok ? result.value !== '' : !spec.orFails.includes(result.error.code)) {
          throw new Error(`the attack should end with '' or ${spec.orFails.join(' / ')}, got ${summarize(result)}`)
        }
      }
      await expectHealthy(sandbox, 'the attack')
    },
  }
}
