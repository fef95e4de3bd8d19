// The programs a soak run cycles through: ordinary work and hostile programs, each with the
// result it must produce. Weights say how often each appears in every 100 runs; hostile ones
// are rarer because each costs a deadline or a killed engine.

const echoTools = {
  'host.echo': { execute: (value) => value },
  'host.fail': {
    execute: () => {
      throw new Error('tool failed on purpose')
    },
  },
  'host.hang': { execute: (_input, { signal }) => new Promise((resolve) => signal.addEventListener('abort', resolve)) },
}

export const SOAK_PROGRAMS = [
  { name: 'arithmetic', weight: 30, code: 'return 1 + 2', expect: { value: 3 } },
  {
    name: 'json and arrays',
    weight: 15,
    code: 'const a = Array.from({ length: 200 }, (_, i) => ({ i, s: String(i) }))\nreturn JSON.parse(JSON.stringify(a)).reduce((t, x) => t + x.i, 0)',
    expect: { value: 19900 },
  },
  {
    name: 'tool calls',
    weight: 15,
    code: 'let s = 0\nfor (let i = 0; i < 20; i++) s += await host.echo(i)\nreturn s',
    tools: echoTools,
    expect: { value: 190 },
  },
  {
    name: 'logs',
    weight: 10,
    code: "for (let i = 0; i < 50; i++) console.log('line', i)\nreturn 'logged'",
    expect: { value: 'logged', logs: 50 },
  },
  { name: 'guest throws', weight: 8, code: "throw new TypeError('bad input')", expect: { code: 'RUNTIME_ERROR' } },
  // A tool's error is thrown in the guest; uncaught, it ends the run as the guest's error.
  { name: 'tool throws', weight: 5, code: 'return await host.fail()', tools: echoTools, expect: { code: 'RUNTIME_ERROR' } },
  { name: 'syntax error', weight: 3, code: 'return (', expect: { code: 'SYNTAX_ERROR' } },
  // Hostile: each must end with its limit code and leave the next run healthy.
  { name: 'busy loop', weight: 2, code: 'for (;;) {}', options: { timeoutMs: 100 }, expect: { code: 'TIMEOUT' } },
  { name: 'microtask flood', weight: 2, code: 'for (;;) await null', options: { timeoutMs: 100 }, expect: { code: 'TIMEOUT' } },
  {
    name: 'hanging tool',
    weight: 1,
    code: 'return await host.hang()',
    tools: echoTools,
    options: { timeoutMs: 100 },
    expect: { code: 'TIMEOUT' },
  },
  {
    name: 'heap bomb',
    weight: 1,
    code: 'const a = []\nfor (;;) a.push(new Array(1e5).fill({ x: 1 }))',
    options: { memoryMb: 32, timeoutMs: 5000 },
    expect: { code: 'MEMORY_LIMIT' },
  },
  {
    name: 'tool-call flood',
    weight: 2,
    code: 'for (;;) await host.echo(1)',
    tools: echoTools,
    options: { maxToolCalls: 50 },
    expect: { code: 'TOOL_CALL_LIMIT' },
  },
  {
    name: 'oversized result',
    weight: 2,
    code: "return 'x'.repeat(2e6)",
    options: { maxOutputBytes: 100_000 },
    expect: { code: 'OUTPUT_LIMIT' },
  },
  // Entries over maxLogEntries are dropped and counted; the run itself succeeds.
  {
    name: 'log flood',
    weight: 2,
    code: "for (let i = 0; i < 1e5; i++) console.log('spam', i)\nreturn 1",
    options: { maxLogEntries: 100 },
    expect: { value: 1, logs: 100, logsDropped: 99_900 },
  },
  {
    name: 'constructor escape',
    weight: 2,
    code: "try { return typeof this.constructor.constructor('return process')() } catch { return 'blocked' }",
    expect: { oneOf: ['blocked', 'undefined'] },
  },
]

/** One deterministic sequence: every block of 100 runs holds each program `weight` times, shuffled. */
export function soakSequence(runs) {
  const block = SOAK_PROGRAMS.flatMap((program) => Array.from({ length: program.weight }, () => program))
  let seed = 42
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const sequence = []
  while (sequence.length < runs) {
    const shuffled = [...block].sort(() => random() - 0.5)
    sequence.push(...shuffled)
  }
  return sequence.slice(0, runs)
}

/** '' when `result` is what `program` must produce, else why not. */
export function mismatch(program, result) {
  const { expect } = program
  if (expect.code !== undefined)
    return !result.ok && result.error.code === expect.code ? '' : `expected ${expect.code}, got ${describe(result)}`
  if (!result.ok) return `expected a value, got ${describe(result)}`
  if (expect.oneOf !== undefined)
    return expect.oneOf.includes(result.value) ? '' : `expected one of ${expect.oneOf.join(', ')}, got ${String(result.value)}`
  if (result.value !== expect.value) return `expected ${JSON.stringify(expect.value)}, got ${JSON.stringify(result.value)}`
  if (expect.logs !== undefined && result.logs.length !== expect.logs) return `expected ${expect.logs} logs, got ${result.logs.length}`
  if (expect.logsDropped !== undefined && result.stats.logsDropped !== expect.logsDropped)
    return `expected ${expect.logsDropped} logs dropped, got ${result.stats.logsDropped}`
  return ''
}

const describe = (result) =>
  result.ok ? `ok ${JSON.stringify(result.value)?.slice(0, 80)}` : `${result.error.code}: ${result.error.message.slice(0, 120)}`
