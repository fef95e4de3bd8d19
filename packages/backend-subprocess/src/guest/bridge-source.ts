/**
 * Source of a function evaluated inside the guest's vm context before any guest code exists and
 * called with that realm's primordials (PRIMORDIALS_SOURCE, sent by the host in `init`). It makes
 * two helpers, functions of the guest realm that use only those captured built-ins:
 *
 * - `schedule(fn, a, b, c)` queues `fn(a, b, c)` as a job on the context's own microtask
 *   queue. The child then runs that queue with a timed evaluation, so guest code never
 *   runs outside a vm `timeout` scope (which also covers microtask floods).
 * - `wrapHost(dispatch)` returns the host functions the guest runtime needs as
 *   guest-realm functions that close over `dispatch`. Its `storeLog` writes each console entry
 *   to the parent at once: the pipe keeps it when the child is killed (a deadline, the memory
 *   limit), which a batch still in the guest's heap would not survive. Even if one leaked to guest code,
 *   its `constructor` would be the guest realm's Function, not the child's.
 *
 * Two more guards keep guest code inside timed evaluations:
 *
 * - `then` reads its receiver's `constructor` (to find a species): the promise `schedule`
 *   uses has an own `constructor` of `undefined`, so scheduling never runs a getter or a
 *   species constructor the guest put on `Promise.prototype`.
 * - V8 calls a `FinalizationRegistry` cleanup callback from a task of its own, outside any
 *   job — in a session, possibly while the child waits between runs, where no deadline
 *   applies. The guest's `FinalizationRegistry` hands V8 a callback of this helper instead,
 *   which only queues the guest's callback as a job: it runs in the next timed evaluation of
 *   a run. The engine's own constructor is not reachable from the guest afterwards.
 *
 * It counts engine work that settles a guest promise from outside any job (WebAssembly's async
 * compile and instantiate, `Atomics.waitAsync`): `held()` is how many are pending, and a run
 * with one is never ended as a deadlock.
 *
 * It also gives the guest realm a default `Error.prepareStackTrace` (Node uses a context's
 * own one) that leaves out the frames of the child below the guest (its file paths, Node
 * internals, the runtime, the allocation guard), so stacks read like the guest's own code
 * only. A guest may replace it; what it can then read are file names, never a child object
 * (every frame below the guest is strict-mode code, and the child's realm refuses to compile
 * strings).
 */
export const BRIDGE_SOURCE = `(function (p) {
  'use strict'
  var then = p.promiseThen
  var apply = p.apply
  var resolved = apply(p.promiseResolve, p.PromiseCtor, [])
  var construct = p.construct
  var define = p.defineProperty
  define(resolved, 'constructor', { value: undefined })
  var NativeRegistry = FinalizationRegistry
  var Registry = function FinalizationRegistry(cleanup) {
    if (new.target === undefined) throw new p.TypeErrorCtor("Constructor FinalizationRegistry requires 'new'")
    if (typeof cleanup !== 'function') throw new p.TypeErrorCtor('FinalizationRegistry: cleanup must be callable')
    return construct(NativeRegistry, [function (held) {
      apply(then, resolved, [function () { cleanup(held) }])
    }], new.target)
  }
  define(Registry, 'prototype', { value: NativeRegistry.prototype, writable: false })
  define(NativeRegistry.prototype, 'constructor', { value: Registry, writable: true, enumerable: false, configurable: true })
  define(globalThis, 'FinalizationRegistry', { value: Registry, writable: true, enumerable: false, configurable: true })
  var errorToString = p.errorToString
  var regexpExec = p.regexpExec
  // A call site's own toString, taken from a stack made now: '+' on a call site would ask the
  // guest's Object.prototype for Symbol.toPrimitive and valueOf.
  define(Error, 'prepareStackTrace', { value: function (e, sites) { return sites }, writable: true, configurable: true })
  var callSiteToString = p.getPrototypeOf(new Error().stack[0]).toString
  var HIDDEN = /^(?:node:|file:|\\/|[A-Za-z]:\\\\|cordon-(?:runtime|bridge|drain|alloc-guard)\\.js$)/
  define(Error, 'prepareStackTrace', {
    value: function prepareStackTrace(error, sites) {
      var out
      try { out = apply(errorToString, error, []) } catch (e) { out = 'Error' }
      for (var i = 0; i < sites.length; i++) {
        var file
        try { file = sites[i].getFileName() } catch (e) { file = undefined }
        if (typeof file === 'string' && apply(regexpExec, HIDDEN, [file]) !== null) continue
        out += '\\n    at ' + apply(callSiteToString, sites[i], [])
      }
      return out
    },
    writable: true,
    configurable: true,
    enumerable: false
  })
  // Engine work that settles a guest promise from outside any job (an async wasm compile, a
  // waitAsync): while one is pending, an idle run is not a deadlock (see held).
  var holds = 0
  var released = function (value) { holds--; return value }
  var failed = function (error) { holds--; throw error }
  var hold = function (promise) {
    // The engine's fresh promise, never seen by the guest: an own constructor of undefined keeps
    // then from asking for a species; the guest gets the plain promise then makes.
    try { define(promise, 'constructor', { value: undefined }) } catch (e) { return promise }
    holds++
    return apply(then, promise, [released, failed])
  }
  var holding = function (target, key, pick) {
    var original = target !== undefined && target !== null ? target[key] : undefined
    if (typeof original !== 'function') return
    var wrapped = { [key]: function () { return pick(apply(original, this, arguments)) } }[key]
    define(wrapped, 'length', { value: original.length })
    define(target, key, { value: wrapped, writable: true, enumerable: false, configurable: true })
  }
  var wasm = typeof WebAssembly === 'object' ? WebAssembly : undefined
  var names = ['compile', 'instantiate', 'compileStreaming', 'instantiateStreaming']
  for (var n = 0; n < names.length; n++) holding(wasm, names[n], hold)
  holding(typeof Atomics === 'object' ? Atomics : undefined, 'waitAsync', function (result) {
    if (result !== null && typeof result === 'object' && p.dataValue(p.getOwnPropertyDescriptor(result, 'async')) === true) {
      define(result, 'value', { value: hold(result.value), writable: true, enumerable: true, configurable: true })
    }
    return result
  })
  return {
    held: function () { return holds },
    schedule: function (fn, a, b, c) {
      apply(then, resolved, [function () { fn(a, b, c) }])
    },
    wrapHost: function (dispatch) {
      return {
        log: function (entries) { dispatch('log', entries) },
        storeLog: function (entry) { dispatch('log', entry); return true },
        call: function (id, name, args) { dispatch('call', id, name, args) },
        callSync: function (name, args) { return dispatch('call-sync', name, args) },
        timer: function (id, delayMs) { dispatch('timer', id, delayMs) },
        done: function (status, payload, logsDropped) { dispatch('done', status, payload, logsDropped) }
      }
    }
  }
})`

/** File names the helper and runtime scripts are compiled under (they show in guest stacks). */
export const BRIDGE_FILENAME = 'cordon-bridge.js'
export const RUNTIME_FILENAME = 'cordon-runtime.js'
