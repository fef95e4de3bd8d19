/**
 * Source of the allocation guard, evaluated inside the guest's vm context before the guest
 * runtime and before any guest code, so it captures pristine intrinsics.
 *
 * Why: a refused ArrayBuffer (or wasm memory) allocation is a catchable RangeError, and a
 * failed allocation holds nothing, so the child's checkpoints (arrayBuffers held, uncaught
 * errors) never see a guest that catches it. The guard replaces every engine entry point
 * that allocates such memory with a Proxy that, when the engine reports an allocation
 * failure, calls `report(message)` (kept in this closure) before rethrowing the error:
 *
 * - constructors: ArrayBuffer, SharedArrayBuffer, every typed array (length, array-like,
 *   iterable, typed-array arguments), WebAssembly.Memory, WebAssembly.Instance;
 * - methods: ArrayBuffer.prototype slice/resize/transfer/transferToFixedLength,
 *   SharedArrayBuffer.prototype slice/grow, %TypedArray%.from/of, %TypedArray%.prototype
 *   slice/map/filter/toReversed/toSorted/with (these may build their result with the
 *   unwrapped intrinsic when the guest removed `constructor`), WebAssembly.Memory.prototype.grow;
 * - WebAssembly.instantiate, whose failure is a rejection: it is observed without running
 *   guest code (an own `constructor` of `undefined` makes `then` skip the species lookup).
 *
 * DataView, subarray and buffer-backed typed arrays allocate no buffer memory, so they stay
 * as they are. Proxies keep names, lengths, prototypes, `instanceof` and native-looking
 * source; each `prototype.constructor` points at the Proxy so the unwrapped constructor is
 * never reachable. Handlers have a null prototype: traps inherited from a guest-modified
 * `Object.prototype` would hand the guest the unwrapped target.
 */
export const ALLOCATION_GUARD_SOURCE = `(function (p, report) {
  'use strict'
  var G = globalThis
  var ProxyCtor = p.ProxyCtor
  var construct = p.construct
  var apply = p.apply
  var define = p.defineProperty
  var describe = p.getOwnPropertyDescriptor
  var protoOf = p.getPrototypeOf
  var indexOf = p.stringIndexOf
  var then = p.promiseThen
  var rangeErrorPrototype = p.rangeErrorPrototype
  var FAILURES = ['Array buffer allocation failed', 'Out of memory', 'could not allocate memory', 'Unable to grow instance memory']

  function check(error) {
    var message
    try {
      if (typeof error !== 'object' || error === null || protoOf(error) !== rangeErrorPrototype) return
      // The descriptor's own field only: an accessor's has no 'value' to find on Object.prototype.
      message = p.dataValue(describe(error, 'message'))
    } catch (e) {
      return
    }
    if (typeof message !== 'string') return
    for (var i = 0; i < FAILURES.length; i++) {
      if (apply(indexOf, message, [FAILURES[i]]) !== -1) return report(message)
    }
  }

  function observe(promise) {
    try {
      define(promise, 'constructor', { __proto__: null, value: undefined, configurable: true })
      apply(then, promise, [undefined, check])
      delete promise.constructor
    } catch (e) {
      // Not a native promise: nothing the engine could reject with an allocation failure.
    }
  }

  function guardConstructor(owner, name) {
    var own = owner === undefined ? undefined : describe(owner, name)
    if (own === undefined || typeof own.value !== 'function') return
    var target = own.value
    var guarded = new ProxyCtor(target, {
      __proto__: null,
      construct: function (t, args, newTarget) {
        try {
          return construct(t, args, newTarget === guarded ? t : newTarget)
        } catch (error) {
          check(error)
          throw error
        }
      }
    })
    define(target.prototype, 'constructor', { __proto__: null, value: guarded, writable: true, configurable: true, enumerable: false })
    define(owner, name, { __proto__: null, value: guarded, writable: own.writable, configurable: own.configurable, enumerable: own.enumerable })
  }

  function guardMethod(owner, key, returnsPromise) {
    var own = owner === undefined ? undefined : describe(owner, key)
    if (own === undefined || typeof own.value !== 'function') return
    var guarded = new ProxyCtor(own.value, {
      __proto__: null,
      apply: function (t, self, args) {
        var result
        try {
          result = apply(t, self, args)
        } catch (error) {
          check(error)
          throw error
        }
        if (returnsPromise) observe(result)
        return result
      }
    })
    define(owner, key, { __proto__: null, value: guarded, writable: own.writable, configurable: own.configurable, enumerable: own.enumerable })
  }

  var TypedArray = protoOf(Uint8Array)
  var typedArrays = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
    'Uint32Array', 'Float16Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array']
  var i
  for (i = 0; i < typedArrays.length; i++) guardConstructor(G, typedArrays[i])
  var statics = ['from', 'of']
  for (i = 0; i < statics.length; i++) guardMethod(TypedArray, statics[i])
  var copies = ['slice', 'map', 'filter', 'toReversed', 'toSorted', 'with']
  for (i = 0; i < copies.length; i++) guardMethod(TypedArray.prototype, copies[i])

  var buffers = ['slice', 'resize', 'transfer', 'transferToFixedLength']
  for (i = 0; i < buffers.length; i++) guardMethod(ArrayBuffer.prototype, buffers[i])
  guardConstructor(G, 'ArrayBuffer')
  if (typeof SharedArrayBuffer === 'function') {
    guardMethod(SharedArrayBuffer.prototype, 'slice')
    guardMethod(SharedArrayBuffer.prototype, 'grow')
    guardConstructor(G, 'SharedArrayBuffer')
  }

  var wasm = typeof WebAssembly === 'object' && WebAssembly !== null ? WebAssembly : undefined
  if (wasm !== undefined && typeof wasm.Memory === 'function') guardMethod(wasm.Memory.prototype, 'grow')
  guardConstructor(wasm, 'Memory')
  guardConstructor(wasm, 'Instance')
  guardMethod(wasm, 'instantiate', true)
})`

/** File name the guard is compiled under; guest stacks leave its frames out (see bridge-source.ts). */
export const ALLOCATION_GUARD_FILENAME = 'cordon-alloc-guard.js'
