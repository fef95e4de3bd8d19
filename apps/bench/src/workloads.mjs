// The seven measurements, the guest programs cordon runs for them, and the checks every
// contender's result must pass. A contender implements each workload by hand in its own module;
// what they share is here, so that "the same work" is written down once.

export const TOOL_CALLS = 1000
export const LOG_LINES = 1000
export const FIB_N = 27
export const FIB_RESULT = 196418
export const ECHO_SUM = (TOOL_CALLS * (TOOL_CALLS - 1)) / 2
/** Runs in flight for W6. */
export const IN_FLIGHT = 8

export const WORKLOADS = [
  { id: 'W1', title: 'W1 fresh run of `return 1 + 2`', unit: 'run' },
  // The same runs without the pause W1 gives a pool before each one (plan.mjs: `uses: 'W1'`).
  { id: 'W1b', title: 'W1b back to back: W1 with no pause between runs', unit: 'run', spaced: 'W1' },
  {
    id: 'W2',
    title: `W2 ${TOOL_CALLS.toLocaleString('en')} sequential \`await host.echo(i)\` in one run`,
    unit: 'call',
    perRun: TOOL_CALLS,
  },
  { id: 'W3', title: `W3 recursive \`fib(${FIB_N})\``, unit: 'run' },
  {
    id: 'W4',
    get title() {
      return `W4 ${bigDataSize()} object in as a global, the same back`
    },
    unit: 'run',
  },
  { id: 'W5', title: `W5 ${LOG_LINES.toLocaleString('en')} \`console.log\` lines captured`, unit: 'run' },
  { id: 'W6', title: `W6 throughput: W1 with ${IN_FLIGHT} runs in flight`, unit: 'run' },
]

/** What cordon's `Sandbox.run` gets for each workload (W6 reuses W1). */
export const CORDON_PROGRAMS = {
  W1: 'return 1 + 2',
  W2: `let s = 0\nfor (let i = 0; i < ${TOOL_CALLS}; i++) s += await host.echo(i)\nreturn s`,
  W3: `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }\nreturn fib(${FIB_N})`,
  W4: 'return data',
  W5: `for (let i = 0; i < ${LOG_LINES}; i++) console.log('line', i)\nreturn ${LOG_LINES}`,
}

/** The same programs as plain script bodies for engines driven by hand. */
export const GUEST_SOURCES = {
  fib: `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }`,
  /** `call(arg)` gives the expression that calls the host's echo with `arg`. */
  echoLoop: (call) => `let s = 0; for (let i = 0; i < ${TOOL_CALLS}; i++) s += await ${call('i')}; return s`,
  logLoop: (logCall) => `for (let i = 0; i < ${LOG_LINES}; i++) ${logCall}('line', i)`,
  /** W5 by the raw best method: the lines buffered in the guest, `end(expression)` giving them out as one string. */
  bufferedLogs: (end = (expression) => expression) =>
    `const lines = []; const log = (...a) => { lines.push(a.join(' ')) }; ${GUEST_SOURCES.logLoop('log')}; ${end("lines.join('\\n')")}`,
}

/** W4's record count: 8,000 make about 1 MB of JSON; --quick uses fewer (see plan.mjs). */
let bigItems = 8000
let bigObject
let bigJson

export function setBigDataItems(count) {
  bigItems = count
  bigObject = undefined
}

/** Records with strings, numbers, booleans and a nested array. Built once. */
export function bigData() {
  if (bigObject === undefined) {
    const items = []
    for (let i = 0; i < bigItems; i++) {
      items.push({
        id: i,
        name: `item-${i}`,
        tags: ['alpha', 'beta'],
        score: i * 0.5,
        active: i % 2 === 0,
        note: 'lorem ipsum dolor sit amet',
      })
    }
    bigObject = { items }
    bigJson = JSON.stringify(bigObject)
  }
  return bigObject
}

/** A label for W4's payload, e.g. "~0.9 MB". */
export function bigDataSize() {
  return `~${(bigDataJson().length / 1e6).toFixed(1)} MB`
}

export function bigDataJson() {
  bigData()
  return bigJson
}

export function expectEqual(what, actual, expected) {
  if (actual !== expected) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)?.slice(0, 200)}`)
}

/** W4's result must be a full copy of the object that went in. */
export function checkBigData(value) {
  const items = value?.items
  const n = bigData().items.length
  if (!Array.isArray(items) || items.length !== n)
    throw new Error(`W4: expected ${n} items back, got ${Array.isArray(items) ? items.length : typeof items}`)
  const last = items[n - 1]
  expectEqual('W4 last item', `${last.name}/${last.tags[1]}/${last.score}`, `item-${n - 1}/beta/${(n - 1) * 0.5}`)
}

/** W5's captured lines: all of them, in order, formatted as `console.log('line', i)` prints. */
export function checkLogLines(lines) {
  expectEqual('W5 lines captured', lines.length, LOG_LINES)
  expectEqual('W5 last line', lines[LOG_LINES - 1], `line ${LOG_LINES - 1}`)
}
