/**
 * Work that happens inside one native call of the engine (a regex match, a method walking
 * a huge length, a wait, a big allocation). A backend must still end the run at its deadline
 * or its memory cap, not when the engine returns.
 */
import type { RunResult } from '@cordon/core'
import type { ConformanceCheck } from '../types.js'
import { DOS_TIMEOUT_MS, boundedCase, oneOf, timeoutCase } from './dos-define.js'

const MEMORY_MB = 32
/** Generous, as in the limits group: MEMORY_LIMIT must come from the cap, not the clock. */
const MEMORY_TIMEOUT_MS = 15_000

/**
 * A length no engine walks within DOS_TIMEOUT_MS (QuickJS needs 3 s or more on a 2-core
 * machine, V8 about 1 s), yet small enough that an engine which never checks its deadline
 * inside the walk fails in seconds instead of blocking the suite for minutes (2 ** 32 - 1 would).
 */
const HUGE_LENGTH = 2 ** 26

export const engineDosChecks: ConformanceCheck[] = [
  timeoutCase({
    name: 'catastrophic regex backtracking → TIMEOUT',
    programs: ["return /^(a+)+$/.test('a'.repeat(40) + 'b')", "return /(x+x+)+y/.test('x'.repeat(5000))"],
  }),
  // Atomics.wait blocks the thread that runs the guest; where that is the host's thread, a
  // backend must not offer it. Engines without Atomics (or without shared memory) say so.
  boundedCase({
    name: 'Atomics.wait on shared memory nobody will notify → TIMEOUT (or no Atomics)',
    timeoutMs: DOS_TIMEOUT_MS,
    programs: [
      [
        "if (typeof Atomics !== 'object' || typeof SharedArrayBuffer !== 'function') return 'no Atomics'",
        "try { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0) } catch (e) { return 'no Atomics' }",
        "return 'woke up'",
      ].join('\n'),
    ],
    accept: oneOf(['no Atomics'], ['TIMEOUT']),
  }),
  // isolated-vm 5 aborts its whole process when a waitAsync with a finite timeout is pending
  // (found by running test262's Atomics tests): the run must end with its value, a guest error
  // or at its deadline (a node:vm context whose event loop never settles the wait), and the
  // backend must live on. Engines without it say so.
  boundedCase({
    name: 'Atomics.waitAsync with a timeout, and one woken by notify, end normally (or no waitAsync)',
    timeoutMs: DOS_TIMEOUT_MS,
    programs: [
      [
        "if (typeof Atomics !== 'object' || typeof Atomics.waitAsync !== 'function' || typeof SharedArrayBuffer !== 'function') return 'no waitAsync'",
        'const cell = new Int32Array(new SharedArrayBuffer(16))',
        'return await Atomics.waitAsync(cell, 0, 0, 10).value',
      ].join('\n'),
      [
        "if (typeof Atomics !== 'object' || typeof Atomics.waitAsync !== 'function' || typeof SharedArrayBuffer !== 'function') return 'no waitAsync'",
        'const cell = new Int32Array(new SharedArrayBuffer(16))',
        'const waiting = Atomics.waitAsync(cell, 0, 0, 1000)',
        'Atomics.notify(cell, 0, 1)',
        'return await waiting.value',
      ].join('\n'),
    ],
    accept: oneOf(['no waitAsync', 'timed-out', 'ok'], ['RUNTIME_ERROR', 'TIMEOUT']),
  }),
  // quickjs-emscripten documents that its interrupt handler runs between bytecode
  // instructions; built-ins walking a sparse array or an array-like by its length run in C.
  boundedCase({
    name: 'built-ins walking a huge sparse length or array-like end by the deadline',
    timeoutMs: DOS_TIMEOUT_MS,
    programs: [
      `const a = []\na.length = ${HUGE_LENGTH}\nreturn a.includes(1)`,
      `return Array.prototype.lastIndexOf.call({ length: ${HUGE_LENGTH} }, 1)`,
      `const a = []\na.length = ${HUGE_LENGTH}\na.reverse()\nreturn a.length === ${HUGE_LENGTH}`,
    ],
    accept: oneOf([false, -1, true], ['TIMEOUT']),
  }),
  boundedCase({
    // A dense array with a big separator: walking a huge sparse length is the case above.
    name: 'strings of a gigabyte or more (repeat, join, padEnd) end RUNTIME_ERROR or MEMORY_LIMIT',
    // The join fills the default memory cap first (~0.15 s on a quiet 2-core VM, over 1 s once
    // under CI's load): the outcome must come from the cap or the engine, not the clock.
    timeoutMs: MEMORY_TIMEOUT_MS,
    programs: [
      "return 'x'.repeat(2 ** 30).length",
      "return new Array(1024).join('x'.repeat(2 ** 20)).length",
      "return ''.padEnd(2 ** 31, 'x').length",
    ],
    accept: rangeErrorOrLimit,
  }),
  boundedCase({
    name: `one flat 256 MB string with memoryMb ${MEMORY_MB} → MEMORY_LIMIT`,
    requires: { memoryLimit: true },
    timeoutMs: MEMORY_TIMEOUT_MS,
    options: () => ({ memoryMb: MEMORY_MB }),
    // slice() flattens: V8 would otherwise keep repeat's result as a small rope.
    programs: ["const s = ('xy'.repeat(2 ** 27) + 'z').slice(1)\nreturn s.length"],
    accept: rangeErrorOrLimit,
  }),
  // quickjs-emscripten issue #271: its memory limit bounded single allocations, not their sum.
  boundedCase({
    name: `many 4 MB strings adding up over memoryMb ${MEMORY_MB} → MEMORY_LIMIT (quickjs-emscripten #271)`,
    requires: { memoryLimit: true },
    timeoutMs: MEMORY_TIMEOUT_MS,
    options: () => ({ memoryMb: MEMORY_MB }),
    programs: ["const keep = []\nfor (let i = 0; i < 64; i++) keep.push(('x'.repeat(2 ** 22) + i).slice(1))\nreturn keep.length"],
    accept: oneOf([], ['MEMORY_LIMIT']),
  }),
  // Off-heap memory: one big ArrayBuffer, a resizable one grown by doubling, a WebAssembly
  // memory grown page by page. The guest catches every failure; the run must still end
  // MEMORY_LIMIT, unless the API itself is absent or refused up front (a TypeError).
  boundedCase({
    name: `ArrayBuffer and WebAssembly.Memory growth caught by the guest still → MEMORY_LIMIT (memoryMb ${MEMORY_MB})`,
    requires: { memoryLimit: true },
    timeoutMs: MEMORY_TIMEOUT_MS,
    options: () => ({ memoryMb: MEMORY_MB }),
    programs: [
      "try { const b = new ArrayBuffer(2 ** 30); new Uint8Array(b).fill(1); return 'allocated' } catch (e) { return 'caught ' + e }",
      [
        'let b',
        "try { b = new ArrayBuffer(1, { maxByteLength: 2 ** 30 }) } catch (e) { return 'unavailable' }",
        "if (typeof b.resize !== 'function') return 'unavailable'",
        "try { for (let n = 2 ** 20; n <= 2 ** 30; n *= 2) { b.resize(n); new Uint8Array(b).fill(1) } return 'grown' } catch (e) { return 'caught ' + e }",
      ].join('\n'),
      [
        "if (typeof WebAssembly !== 'object') return 'unavailable'",
        'const m = new WebAssembly.Memory({ initial: 1, maximum: 16384 })',
        "try { for (let i = 0; i < 16383; i += 16) { m.grow(16); new Uint8Array(m.buffer).fill(1) } return 'grown' } catch (e) { return 'caught ' + e }",
      ].join('\n'),
    ],
    accept: oneOf(['unavailable'], ['MEMORY_LIMIT']),
  }),
]

function rangeErrorOrLimit(result: RunResult): string | undefined {
  if (!result.ok && result.error.code === 'MEMORY_LIMIT') return undefined
  if (!result.ok && result.error.code === 'RUNTIME_ERROR' && result.error.name === 'RangeError') return undefined
  return 'expected MEMORY_LIMIT or a RangeError'
}
