import type { ToolSet } from '@cordon/core'
import { expectError, runOk, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'

class QuotaError extends Error {
  override name = 'QuotaError'
  readonly code = 'E_QUOTA'
}

/** What each tool throws, and what the guest must see: [name, message, code, instanceof Error, own class]. */
const THROWN: Record<string, { thrown: () => unknown; seen: [string, string, string | null, boolean, string] }> = {
  subclass: { thrown: () => new QuotaError('over quota'), seen: ['QuotaError', 'over quota', 'E_QUOTA', true, 'Error'] },
  'name set': {
    thrown: () => Object.assign(new Error('no such repo'), { name: 'NotFoundError', code: 'ENOENT' }),
    seen: ['NotFoundError', 'no such repo', 'ENOENT', true, 'Error'],
  },
  'built-in class': { thrown: () => new RangeError('page 0'), seen: ['RangeError', 'page 0', null, true, 'RangeError'] },
  'a number code': { thrown: () => Object.assign(new Error('bad'), { code: 500 }), seen: ['Error', 'bad', null, true, 'Error'] },
  string: { thrown: () => 'plain text', seen: ['Error', 'plain text', null, true, 'Error'] },
  'plain object': {
    thrown: () => ({ name: 'ValidationError', message: 'title is required', code: 'E_INPUT' }),
    seen: ['ValidationError', 'title is required', 'E_INPUT', true, 'Error'],
  },
}

function throwingTools(sync: boolean): ToolSet {
  const tools: ToolSet = {}
  for (const [i, { thrown }] of Object.values(THROWN).entries()) {
    tools[`t.fail${i}`] = {
      sync,
      execute: () => {
        throw thrown()
      },
    }
  }
  return tools
}

/** The guest program: calls each tool, catches, and describes what it caught with the realm's own classes. */
function catching(sync: boolean): string {
  const calls = Object.keys(THROWN).map((_, i) => `() => t.fail${i}()`)
  return [
    `const calls = [${calls.join(', ')}]`,
    'const seen = []',
    'const classes = [RangeError, TypeError, Error]',
    'for (const call of calls) {',
    `  try { ${sync ? 'call()' : 'await call()'}; seen.push('no error') } catch (e) {`,
    "    seen.push([e.name, e.message, typeof e.code === 'string' ? e.code : null, e instanceof Error, classes.find((c) => Object.getPrototypeOf(e) === c.prototype)?.name ?? 'other'])",
    '  }',
    '}',
    'return seen',
  ].join('\n')
}

/** The guest catches each tool's error (async or sync tools) and sees THROWN's `seen`. */
function crossing(sync: boolean): ConformanceCheck {
  return {
    group: 'tools',
    name: sync
      ? "a sync tool's error reaches the guest with its name, message and string code, as an async tool's does"
      : "a tool's error reaches the guest with its name, message and string code: subclasses, a set name, built-in classes, thrown strings and plain objects",
    ...(sync ? { requires: { syncHostCalls: true } } : {}),
    async run({ sandbox }) {
      const value = await runOk(sandbox, catching(sync), { tools: throwingTools(sync) })
      const expected = Object.values(THROWN).map(({ seen }) => seen)
      expectSameValue(value, expected, 'what the guest caught ([name, message, code, instanceof Error, class])')
    },
  }
}

export const toolErrorChecks: ConformanceCheck[] = [
  crossing(false),
  crossing(true),
  {
    group: 'tools',
    name: "an uncaught named tool error ends the run RUNTIME_ERROR with the tool's name and message",
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, 'await t.fail0()', { tools: throwingTools(false) })
      const error = expectError(result, 'RUNTIME_ERROR')
      if (error.name !== 'QuotaError' || error.message !== 'over quota') {
        throw new Error(`expected QuotaError: over quota, got ${String(error.name)}: ${error.message}`)
      }
    },
  },
]
