/**
 * One huge flat string: V8 admits the first young large object whatever its size, so
 * isolated-vm's own limit never sees it when the guest drops it at once. The backend's heap
 * readings (see heap-check.ts) must end such runs MEMORY_LIMIT, and leave programs that stay
 * under the limit, garbage included, alone.
 *
 * Quiet: the proof of a string the guest drops at once is a heap reading that must come before
 * V8 collects it, which a machine loaded by other suites can delay past its wait.
 */
import { afterAll, describe, expect, test } from 'vitest'
import { codeOf, ivmSandbox, valueOf } from './helpers.js'

const sandbox = ivmSandbox()
afterAll(() => sandbox.dispose())

const MEMORY_MB = 32
/** Generous: MEMORY_LIMIT must come from the cap, not the clock (a loaded 2-core machine). */
const options = { memoryMb: MEMORY_MB, timeoutMs: 20_000 }

describe('ivm: one string far over memoryMb → MEMORY_LIMIT', () => {
  const overs: Array<[string, string]> = [
    ['a flat 256 MB string (slice flattens a rope)', "const s = ('xy'.repeat(2 ** 27) + 'z').slice(1)\nreturn s.length"],
    ['repeat flattened by a search', "return 'x'.repeat(2 ** 28).indexOf('y')"],
    ['join of a big array', "return new Array(2 ** 16).fill('abcdefgh'.repeat(512)).join('').length"],
    // 1,024 pieces of 256 KB: with 65,536 pieces of 4 KB the loop ran 2 s on a CPU-starved
    // machine, and V8's concurrent marking, under way meanwhile, collected the string before any
    // reading in 2 of 150 runs (the README's "What stays open").
    [
      'concatenation in a loop, then flattened',
      "let s = ''\nfor (let i = 0; i < 2 ** 10; i++) s += 'abcdefgh'.repeat(2 ** 15)\nreturn s.slice(1).length",
    ],
    ['a two-byte 512 MB string', "return ('\\u0100'.repeat(2 ** 28) + 'z').slice(1).length"],
    ['held across an await', "const n = ('xy'.repeat(2 ** 27) + 'z').slice(1).length\nawait null\nreturn n"],
    [
      'held while a timer runs',
      "const s = ('xy'.repeat(2 ** 27) + 'z').slice(1)\nawait new Promise((r) => setTimeout(r, 3000))\nreturn s.length",
    ],
  ]
  for (const [name, code] of overs) {
    test(name, async () => {
      const result = await sandbox.run(code, options)
      expect(codeOf(result)).toBe('MEMORY_LIMIT')
      // The host stays healthy: the next run works.
      expect(valueOf(await sandbox.run('return 1 + 1'))).toBe(2)
    })
  }

  test('a session holding the string ends', async () => {
    const session = await sandbox.createSession({ memoryMb: MEMORY_MB })
    const result = await session.run("globalThis.s = ('xy'.repeat(2 ** 27) + 'z').slice(1)\nreturn s.length", { timeoutMs: 20_000 })
    expect(codeOf(result)).toBe('MEMORY_LIMIT')
    expect(session.ended?.code).toBe('MEMORY_LIMIT')
  })
})

describe('ivm: near the limit, garbage included → ok', () => {
  const unders: Array<[string, string, unknown]> = [
    ['a 16 MB flat string', "return ('x'.repeat(2 ** 24) + 'y').slice(1).length", 2 ** 24],
    [
      '20 MB kept, then an 8 MB flat string',
      "const keep = []\nfor (let i = 0; i < 3e5; i++) keep.push({ i, s: 'v' + i })\nreturn ('x'.repeat(2 ** 23) + 'y').slice(1).length",
      2 ** 23,
    ],
    [
      '100 flat 8 MB strings made and dropped',
      "let n = 0\nfor (let i = 0; i < 100; i++) n += ('z'.repeat(2 ** 23) + i).slice(1).length\nreturn n",
      100 * 2 ** 23 + 90,
    ],
    [
      'object churn with 20 MB kept',
      'const keep = []\nfor (let i = 0; i < 3e5; i++) keep.push({ i })\nlet g = 0\nfor (let i = 0; i < 3e6; i++) g += [i].length\nreturn g',
      3e6,
    ],
  ]
  for (const [name, code, expected] of unders) {
    test(name, async () => {
      expect(valueOf(await sandbox.run(code, options))).toBe(expected)
    })
  }
})
