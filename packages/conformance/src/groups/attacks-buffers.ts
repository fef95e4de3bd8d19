/**
 * Typed arrays over buffers that shrink or detach while the engine is busy with them: guest
 * code running in the middle of a built-in (a `prototype` getter of newTarget, a `valueOf`, a
 * sort comparator) resizes the buffer under a length or pointer the engine has already read.
 * An engine with the bug reads (or writes) past the buffer's new end: the view shows the old
 * bytes or whatever lies beyond them. Each program returns a list of what it saw go wrong, so
 * a failure says what the guest could read; `[]` is a pass. Where the engine has no resizable
 * buffers (or refuses them, as the isolated-vm backend does), no `transfer` or no `Atomics`,
 * the attack has nothing to work with and passes.
 */
import { expectHealthy, expectOk, summarize, timedRun } from '../harness/run.js'
import type { ConformanceCheck } from '../types.js'

/**
 * `__rab(bytes)`: a resizable buffer of that size filled with 0xab, or undefined where there is
 * none; `__bytes(view)`: its first bytes, for the report.
 */
const BUFFER_SOURCE = `
const __rab = (bytes) => {
  let buffer
  try { buffer = new ArrayBuffer(bytes, { maxByteLength: bytes }) } catch (e) { return undefined }
  if (typeof buffer.resize !== 'function' || buffer.resizable !== true) return undefined
  new Uint8Array(buffer).fill(0xab)
  return buffer
}
const __bytes = (view) => Array.prototype.slice.call(view, 0, 8).join()
const __problems = []
`

interface BufferAttack {
  /** The technique, then its public source in parentheses. */
  name: string
  /** Guest code after BUFFER_SOURCE; it pushes what went wrong onto `__problems`. */
  body: string
}

function bufferAttack(spec: BufferAttack): ConformanceCheck {
  return {
    group: 'attacks',
    name: `attack: ${spec.name}`,
    async run({ sandbox }) {
      const { result } = await timedRun(sandbox, `${BUFFER_SOURCE}\n${spec.body}\nreturn __problems`, { timeoutMs: 10_000 })
      const problems = expectOk(result)
      if (!Array.isArray(problems) || problems.length > 0) {
        throw new Error(`the guest read past a shrunk or detached buffer: ${summarize(problems)}`)
      }
      await expectHealthy(sandbox, 'the attack')
    },
  }
}

export const bufferAttacks: ConformanceCheck[] = [
  // bellard's QuickJS 2025-09-13 without a SAB allocator hook (quickjs-emscripten's case)
  // allocated a growable SharedArrayBuffer at its initial length and let grow() move its length up
  // to maxByteLength: the view then read the engine's heap (cordon's runtime source, tool names)
  // and writing corrupted it. A grown buffer must hold only zeros and keep what is written to it.
  bufferAttack({
    name: 'a growable SharedArrayBuffer grown to its maxByteLength holds zeros of its own, or is refused (bellard QuickJS without a SAB allocator)',
    body: `
let shared
try { shared = new SharedArrayBuffer(8, { maxByteLength: 65536 }) } catch (e) { shared = undefined }
if (shared !== undefined && shared.growable === true) {
  shared.grow(65536)
  const view = new Uint8Array(shared)
  let nonZero = 0
  for (let i = 0; i < view.length; i++) if (view[i] !== 0) nonZero++
  if (nonZero > 0) __problems.push('the grown buffer held ' + nonZero + ' bytes it never wrote: ' + __bytes(view.subarray(8)))
  view.fill(0x41)
  if (view[65535] !== 0x41) __problems.push('a write to the grown buffer did not stay')
}
`,
  }),
  // bellard/quickjs #478 (quickjs-ng #1296): the TypedArray constructor read the buffer's length
  // before it read newTarget.prototype, whose getter shrinks the buffer to nothing; the new view
  // kept the old length and read freed memory. The spec reads the prototype first, so the view
  // is made over an empty buffer and tracks it: length 0.
  bufferAttack({
    name: "a view made while newTarget's prototype getter empties its buffer reads as empty (bellard/quickjs #478, quickjs-ng #1296)",
    body: `
const buffer = __rab(64)
if (buffer !== undefined) {
  const newTarget = function () {}.bind()
  Object.defineProperty(newTarget, 'prototype', { get() { buffer.resize(0); return Uint8Array.prototype } })
  const view = Reflect.construct(Uint8Array, [buffer], newTarget)
  if (view.length !== 0 || view.byteLength !== 0 || view[0] !== undefined) {
    __problems.push('length ' + view.length + ', byteLength ' + view.byteLength + ', bytes ' + __bytes(view))
  }
}`,
  }),
  // The same constructor path with an explicit length, and with the buffer detached by
  // `transfer()` instead of shrunk: the spec throws (RangeError, TypeError); the bug made a view
  // of the old length over memory the buffer no longer owns.
  bufferAttack({
    name: "a fixed-length view over a buffer newTarget's prototype getter shrinks or detaches is refused (bellard/quickjs #478)",
    body: `
const attempt = (label, buffer, args, spoil) => {
  const newTarget = function () {}.bind()
  Object.defineProperty(newTarget, 'prototype', { get() { spoil(); return Uint8Array.prototype } })
  try {
    const view = Reflect.construct(Uint8Array, [buffer, ...args], newTarget)
    __problems.push(label + ': a view of length ' + view.length + ' was made, bytes ' + __bytes(view))
  } catch (e) {
    if (!(e instanceof RangeError || e instanceof TypeError)) __problems.push(label + ': threw ' + String(e))
  }
}
const shrinking = __rab(64)
if (shrinking !== undefined) attempt('shrunk to 0', shrinking, [0, 16], () => shrinking.resize(0))
const plain = new ArrayBuffer(64)
new Uint8Array(plain).fill(0xab)
if (typeof plain.transfer === 'function') attempt('detached', plain, [], () => plain.transfer())`,
  }),
  // quickjs-ng #1305: the same, with a typed array as the source; its length was read before a
  // Proxy newTarget's prototype trap emptied the buffer, and that many bytes were copied. The
  // copy may be empty, zeros, or refused; it must never hold the source's old bytes.
  bufferAttack({
    name: 'a typed array copied while a Proxy newTarget empties its buffer holds none of its old bytes (quickjs-ng #1305)',
    body: `
const buffer = __rab(64)
if (buffer !== undefined) {
  for (const [label, source] of [['length-tracking', new Uint8Array(buffer)], ['fixed-length', new Uint8Array(buffer, 0, 64)]]) {
    const newTarget = new Proxy(function () {}, {
      get(target, key, receiver) {
        if (key === 'prototype') { buffer.resize(0); return Uint8Array.prototype }
        return Reflect.get(target, key, receiver)
      },
    })
    try {
      const copy = Reflect.construct(Uint8Array, [source], newTarget)
      if (copy.some((byte) => byte !== 0)) __problems.push(label + ': the copy holds ' + __bytes(copy))
    } catch (e) {
      if (!(e instanceof RangeError || e instanceof TypeError)) __problems.push(label + ': threw ' + String(e))
    }
    buffer.resize(64)
    new Uint8Array(buffer).fill(0xab)
  }
}`,
  }),
  // bellard/quickjs #492: TypedArray.prototype.with kept the length it read before converting
  // the new value, whose valueOf shrinks the buffer, and copied that many elements from the
  // smaller buffer. Past the buffer's new end the copy must hold zeros (or be shorter).
  bufferAttack({
    name: "TypedArray.prototype.with whose value's valueOf shrinks the buffer copies no element past its end (bellard/quickjs #492)",
    body: `
const buffer = __rab(4096)
if (buffer !== undefined) {
  const words = new Int32Array(buffer)
  const copy = words.with(0, { valueOf() { buffer.resize(16); return 7 } })
  const beyond = Array.prototype.slice.call(copy, 4).filter((word) => word !== 0)
  if (copy[0] !== 7) __problems.push('the new element is ' + copy[0])
  if (beyond.length > 0) __problems.push(beyond.length + ' elements past the new end are not 0, e.g. ' + beyond.slice(0, 4).join())
}`,
  }),
  // bellard/quickjs #477 (quickjs-ng #1297): a sort comparator that shrinks the buffer late in
  // the sort, once high indices had moved to the front, made the engine copy elements from past
  // the new end. The program tries a shrink at every comparison; afterwards each element must be
  // one of the values the array held (distinct doubles, so anything read from beyond shows).
  bufferAttack({
    name: 'a TypedArray sort comparator that shrinks the buffer leaves only values the array held (bellard/quickjs #477)',
    body: `
const count = 256
const make = () => {
  let buffer
  try { buffer = new ArrayBuffer(count * 8, { maxByteLength: count * 8 }) } catch (e) { return undefined }
  if (typeof buffer.resize !== 'function') return undefined
  const values = new Float64Array(buffer)
  for (let i = 0; i < count; i++) values[i] = count - i + 0.25
  return { buffer, values }
}
const sample = make()
if (sample !== undefined) {
  const held = new Set(sample.values)
  let comparisons = 0
  sample.values.sort((a, b) => (comparisons++, a - b))
  const seen = new Set()
  for (let at = 1; at <= comparisons && seen.size < 4; at++) {
    const { buffer, values } = make()
    let n = 0
    try {
      values.sort((a, b) => { if (++n === at) buffer.resize(80); return a - b })
    } catch (e) {
      if (!(e instanceof TypeError)) seen.add('at comparison ' + at + ' it threw ' + String(e))
      continue
    }
    const foreign = Array.prototype.filter.call(values, (value) => !held.has(value))
    if (foreign.length > 0) seen.add('after a shrink at comparison ' + at + ': ' + foreign.slice(0, 3).join())
  }
  __problems.push(...seen)
}`,
  }),
  // quickjs-ng #1301, #1302, bellard/quickjs #508 and PR #480 (and tc39/proposal-resizablearraybuffer
  // #104): Atomics kept a pointer into the buffer while converting the value, whose valueOf
  // shrinks it, then read and wrote through it. The spec re-validates the index and throws.
  bufferAttack({
    name: "Atomics whose value's valueOf shrinks the buffer throw instead of touching it (quickjs-ng #1301, #1302, bellard/quickjs #508)",
    body: `
if (typeof Atomics === 'object' && Atomics !== null) {
  const operations = {
    store: (words, value) => Atomics.store(words, 200, value),
    add: (words, value) => Atomics.add(words, 200, value),
    exchange: (words, value) => Atomics.exchange(words, 200, value),
    compareExchange: (words, value) => Atomics.compareExchange(words, 200, words[200], value),
  }
  for (const [name, operate] of Object.entries(operations)) {
    const buffer = __rab(1024)
    if (buffer === undefined) break
    const words = new Int32Array(buffer)
    try {
      const returned = operate(words, { valueOf() { buffer.resize(8); return 1 } })
      __problems.push('Atomics.' + name + ' returned ' + String(returned) + ' after the buffer shrank to 8 bytes')
    } catch (e) {
      if (!(e instanceof RangeError || e instanceof TypeError)) __problems.push('Atomics.' + name + ' threw ' + String(e))
    }
  }
}`,
  }),
]
