import type { ToolSet } from '@cordon/core'
import { GUEST_SAME_SOURCE } from '../harness/guest-snippets.js'
import { expectError, expectHostError, runOk, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'
import { CROSSING_SAMPLES, REFUSED_SAMPLES } from './values-samples.js'
import { structuredCloneChecks } from './values-structured-clone.js'
import type { CrossingSample, RefusedSample } from './values-samples.js'

const hostExpected = (sample: CrossingSample): unknown => (sample.hostExpected ?? sample.host)()
const guestExpected = (sample: CrossingSample): string => sample.guestExpected ?? sample.guest

/** A tool that records its arguments, and whether it ran at all. */
function recorder(): { tools: ToolSet; received: unknown[] } {
  const received: unknown[] = []
  return {
    received,
    tools: {
      'values.put': {
        execute: (args: unknown) => {
          received.push(args)
          return null
        },
      },
    },
  }
}

function expectGuestReceived(value: unknown, what: string): void {
  if (value !== '') throw new Error(`${what}: the guest received something else: ${String(value)}`)
}

function crossingChecks(sample: CrossingSample): ConformanceCheck[] {
  return [
    {
      group: 'values',
      name: `result: ${sample.name}`,
      async run({ sandbox }) {
        const value = await runOk(sandbox, `return (${sample.guest})`)
        expectSameValue(value, hostExpected(sample), `${sample.name} returned by the guest`)
      },
    },
    {
      group: 'values',
      name: `globals: ${sample.name}`,
      async run({ sandbox }) {
        const code = `${GUEST_SAME_SOURCE}\nreturn __same(v, (${guestExpected(sample)}))`
        expectGuestReceived(await runOk(sandbox, code, { globals: { v: sample.host() } }), `${sample.name} as a global`)
      },
    },
    {
      group: 'values',
      name: `tool result: ${sample.name}`,
      async run({ sandbox }) {
        const code = `${GUEST_SAME_SOURCE}\nreturn __same(await values.get(), (${guestExpected(sample)}))`
        const tools: ToolSet = { 'values.get': { execute: () => sample.host() } }
        expectGuestReceived(await runOk(sandbox, code, { tools }), `${sample.name} returned by a tool`)
      },
    },
    {
      group: 'values',
      name: `tool arguments: ${sample.name}`,
      async run({ sandbox }) {
        const { tools, received } = recorder()
        await runOk(sandbox, `await values.put(${sample.guest}); return 'sent'`, { tools })
        if (received.length !== 1) throw new Error(`the tool ran ${received.length} times, expected once`)
        expectSameValue(received[0], hostExpected(sample), `${sample.name} passed to a tool`)
      },
    },
  ]
}

function refusedChecks(sample: RefusedSample): ConformanceCheck[] {
  return [
    {
      group: 'values',
      name: `result refused: ${sample.name} → RUNTIME_ERROR TypeError`,
      async run({ sandbox }) {
        const { result } = await timedRun(sandbox, `return (${sample.guest})`)
        const error = expectError(result, 'RUNTIME_ERROR')
        if (error.name !== 'TypeError') throw new Error(`expected name TypeError, got ${String(error.name)}: ${error.message}`)
      },
    },
    {
      group: 'values',
      name: `tool arguments refused: ${sample.name} → catchable TypeError, tool not run`,
      async run({ sandbox }) {
        const { tools, received } = recorder()
        const code = `try { await values.put(${sample.guest}); return 'sent' } catch (e) { return e instanceof TypeError ? 'TypeError' : 'caught ' + String(e && e.name) }`
        const value = await runOk(sandbox, code, { tools })
        if (value !== 'TypeError') throw new Error(`the guest should catch a TypeError, got ${String(value)}`)
        if (received.length !== 0) throw new Error('the tool ran with arguments that cannot cross')
      },
    },
    {
      group: 'values',
      name: `globals refused: ${sample.name} → INVALID_OPTIONS`,
      async run({ sandbox }) {
        await expectHostError(
          () => sandbox.run('1', { globals: { v: sample.host() } }),
          'INVALID_OPTIONS',
          `a global holding ${sample.name}`,
        )
      },
    },
  ]
}

const modelChecks: ConformanceCheck[] = [
  {
    group: 'values',
    name: 'globals are copies: guest changes never reach the host object',
    async run({ sandbox }) {
      const shared = { list: [1], nested: { n: 1 }, map: new Map([['k', 1]]) }
      const code =
        'shared.list.push(2); shared.nested.n = 99; shared.added = true; shared.map.set("k", 2); delete shared.nested; return "done"'
      await runOk(sandbox, code, { globals: { shared } })
      expectSameValue(shared, { list: [1], nested: { n: 1 }, map: new Map([['k', 1]]) }, 'the host object after the guest changed its copy')
    },
  },
  {
    group: 'values',
    name: 'several globals are visible by name',
    async run({ sandbox }) {
      const value = await runOk(sandbox, 'return [a, b.c, typeof d, d.size]', { globals: { a: 1, b: { c: 'x' }, d: new Set([1, 2]) } })
      expectSameValue(value, [1, 'x', 'object', 2], 'globals a, b, d')
    },
  },
  {
    group: 'values',
    name: 'tool arguments are copies: a tool changing them does not change the guest value',
    async run({ sandbox }) {
      const tools: ToolSet = {
        'values.mutate': {
          execute: (args: { list: number[] }) => {
            args.list.push(99)
            return args.list.length
          },
        },
      }
      const value = await runOk(sandbox, 'const arg = { list: [1] }; const n = await values.mutate(arg); return [n, arg.list.length]', {
        tools,
      })
      expectSameValue(value, [2, 1], '[length seen by the tool, length in the guest]')
    },
  },
]

export const valuesChecks: readonly ConformanceCheck[] = [
  ...CROSSING_SAMPLES.flatMap(crossingChecks),
  ...REFUSED_SAMPLES.flatMap(refusedChecks),
  ...modelChecks,
  ...structuredCloneChecks,
]
