/**
 * The ways a guest runs an engine out of memory that once took a whole host process down (an
 * isolated-vm isolate shares the host's process: V8 aborted it on some of these, and on others
 * kept granting heap inside one native call until the host itself ran out). Each must end the run
 * with an acceptable code under the default backend options, and the next run must work.
 */
import type { RunResult } from '@cordon/core'
import { expectHealthy, summarize, timedRun } from '../harness/run.js'
import type { ConformanceCheck } from '../types.js'

const MEMORY_MB = 32
/** Generous: the memory cap must end these runs, not the clock. */
const MEMORY_TIMEOUT_MS = 15_000

type Accept = (result: RunResult) => boolean

const memoryLimit: Accept = (result) => !result.ok && result.error.code === 'MEMORY_LIMIT'
/** An engine's own refusal: V8's RangeError, QuickJS's InternalError (string too long, stack overflow). */
const engineRefusal: Accept = (result) =>
  !result.ok && result.error.code === 'RUNTIME_ERROR' && (result.error.name === 'RangeError' || result.error.name === 'InternalError')
const value =
  (expected: unknown): Accept =>
  (result) =>
    result.ok && result.value === expected

function oomPath(name: string, programs: readonly string[], accepted: readonly Accept[], wanted: string): ConformanceCheck {
  return {
    group: 'limits',
    name: `MEMORY_LIMIT: out of memory by ${name}: the host survives and the next run works`,
    requires: { memoryLimit: true },
    timeoutMs: 30_000 + programs.length * (MEMORY_TIMEOUT_MS + 10_000),
    async run({ sandbox, options }) {
      for (const program of programs) {
        const budget = MEMORY_TIMEOUT_MS + options.timeoutSlackMs + 10_000
        const { result } = await timedRun(sandbox, program, { memoryMb: MEMORY_MB, timeoutMs: MEMORY_TIMEOUT_MS }, budget)
        if (!accepted.some((accept) => accept(result))) {
          throw new Error(`${program.slice(0, 120)}: expected ${wanted}, got ${summarize(result)}`)
        }
        await expectHealthy(sandbox, program.slice(0, 120))
      }
    },
  }
}

export const oomPathChecks: ConformanceCheck[] = [
  oomPath(
    'filling a huge array',
    ['new Array(1e9).fill(0)', 'Array.prototype.fill.call({ length: 1e9 }, 0)', 'const a = []\na.length = 1e9\na.fill(0)'],
    [memoryLimit],
    'MEMORY_LIMIT',
  ),
  // "059": a dictionary-mode object growing key by key, which V8 grows in ever larger steps.
  oomPath('millions of keys on one object', ["const o = {}\nfor (let i = 0; ; i++) o['k' + i] = i"], [memoryLimit], 'MEMORY_LIMIT'),
  oomPath(
    "a huge string ('x'.repeat(2 ** 28), a rope in V8)",
    ["const s = 'x'.repeat(2 ** 28)\nreturn s.length"],
    [value(2 ** 28), memoryLimit],
    'ok 268435456 or MEMORY_LIMIT',
  ),
  oomPath(
    'strings doubling in a loop',
    ["let s = 'x'\nfor (;;) s += s", "let s = 'xy'\nfor (;;) s = (s + s).slice(1)"],
    [memoryLimit, engineRefusal],
    'MEMORY_LIMIT or the engine’s RangeError/InternalError',
  ),
  // V8 aborts the process (crbug.com/1201626) when a built-in asks for an array of 2^27 elements or more.
  oomPath(
    'splitting, matching or parsing a huge string into pieces',
    [
      "return 'x'.repeat(2 ** 28).split('').length",
      "return 'x'.repeat(2 ** 28).match(/x/g).length",
      "return JSON.parse('[' + '0,'.repeat(2 ** 27) + '0]').length",
    ],
    [memoryLimit, engineRefusal],
    'MEMORY_LIMIT or a RangeError',
  ),
  oomPath(
    'WebAssembly memory growth',
    [
      [
        "if (typeof WebAssembly !== 'object') return 'unavailable'",
        'const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 })',
        'for (;;) {\n  m.grow(256)\n  new Uint8Array(m.buffer).fill(1)\n}',
      ].join('\n'),
    ],
    [value('unavailable'), memoryLimit],
    "MEMORY_LIMIT (or 'unavailable' where the guest has no WebAssembly)",
  ),
  oomPath(
    'deep recursion',
    ['function f(n) { return f(n + 1) + 1 }\nreturn f(0)', 'function f(a) { return f([a, new Array(100).fill(a)]) }\nreturn f(0)'],
    [memoryLimit, engineRefusal],
    'MEMORY_LIMIT or a stack overflow error',
  ),
]
