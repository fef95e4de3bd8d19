/**
 * The guest runtime: console, timers, tool namespaces and the value codec, installed in
 * every fresh guest context before user code runs.
 *
 * This function is shipped to engines as source text (see runtime-source.ts), so it
 * must be self-contained: no imports, no references to anything outside its body.
 * It captures every intrinsic it uses up front, so a guest that later redefines
 * `JSON`, `Promise`, `Array.prototype.push`, `Reflect` or `console` changes nothing here.
 * The host functions it receives are kept in this closure and never handed to guest code.
 */
import type { GuestRuntime, RelayFunctions } from './protocol.js'
import { createCodec } from './codec.js'
import { createInspect } from './inspect.js'
import type { Primordials } from './primordials.js'
import type { createFetchApi } from './fetch-api.js'
import type { createUtf8 } from './utf8.js'
import type { createStructuredClone } from './structured-clone.js'

export interface GuestRuntimeWithCodec extends GuestRuntime {
  readonly codec: ReturnType<typeof createCodec>
}

export function cordonGuestRuntime(
  host: RelayFunctions,
  p: Primordials,
  codecFactory: typeof createCodec,
  inspectFactory: typeof createInspect,
  fetchApiFactory: typeof createFetchApi,
  utf8Factory: typeof createUtf8,
  structuredCloneFactory: typeof createStructuredClone,
): GuestRuntimeWithCodec {
  'use strict'
  const G = globalThis as Record<string, unknown>
  const {
    apply,
    defineProperty,
    create,
    keys,
    hasOwn,
    jsonParse,
    jsonStringify,
    PromiseCtor,
    promiseThen,
    promiseResolve,
    ErrorCtor,
    TypeErrorCtor,
    RangeErrorCtor,
    SyntaxErrorCtor,
    ReferenceErrorCtor,
    EvalErrorCtor,
    URIErrorCtor,
    StringCtor,
    stringSlice,
    stringIndexOf,
    list,
    own,
    dataDescriptor,
    construct,
    DateCtor,
    isFiniteNumber,
    objectIs,
    setPrototypeOf,
    arrayPrototype,
    arrayJoin,
    getOwnPropertyDescriptor,
    dataValue,
  } = p
  // Everything this runtime keeps for itself lives in null-prototype arrays and records (`list`,
  // `create(null)`), is read as own data only (`own`), and is written to JSON by hand (a primitive
  // string is the one thing handed to JSON.stringify): the guest's prototypes never reach it.
  /** What the run reports when even describing a failure failed: a constant, so it cannot throw. */
  const UNDESCRIBABLE = '{"name":"Error","message":"a value that could not be described was thrown"}'
  /** How a program that waits for what nothing can settle ends (see `stall`). */
  const STALLED =
    '{"code":"DEADLOCK","message":"the program waits for a promise that nothing can settle: no tool call, timer or fetch is pending"}'

  const codec = codecFactory(p)
  const inspect = inspectFactory(p)

  let maxOutputBytes = 1024 * 1024
  let maxLogEntries = 100
  let maxLogBytes = 1000
  /** The run asked for each console call's arguments as values (`logArgs`), beside the message. */
  let logArgs = false
  let logCount = 0
  let logsDropped = 0
  let finished = false
  let callSeq = 0
  let timerSeq = 0
  const pending: Record<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }> = create(null)
  const timers: Record<number, { fn: Function; args: unknown[]; repeat: number; due: number }> = create(null)
  /**
   * The guest's clock in a durable run (setup.clock): it starts at a time the continuation keeps
   * and moves only when a timer fires (to the timer's due time), so a replay reads the same times.
   */
  let virtualNow = 0
  /** Tool functions this runtime defined, so the next run of a session can take them back. */
  let installedTools: { target: Record<string, unknown>; key: string; fn: Function }[] = list()
  /** The fetch API globals this run defined (`fetch` run option), taken back by the next run. */
  let installedFetch: Record<string, unknown> | undefined

  /** `{"k":"v",…}` of the fields whose value is a string; the rest are left out. */
  function stringRecord(fields: string[]): string {
    let out = '{'
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const value = fields[i + 1]
      if (typeof value !== 'string') continue
      out += (out === '{' ? '' : ',') + '"' + fields[i] + '":' + jsonStringify(value)
    }
    return out + '}'
  }

  /**
   * Defines a property, on the global object too. An existing global is deleted first: redefining
   * one in a Node vm context goes through Node's descriptor interceptor, which hands V8 a
   * descriptor object of the guest's realm, and a `get` the guest put on Object.prototype makes
   * that descriptor invalid, which V8 treats as a fatal error of the whole process.
   */
  function defineOwn(target: object, key: string, descriptor: PropertyDescriptor): void {
    if (target === G && apply(hasOwn, G, [key])) {
      try {
        delete G[key]
      } catch {
        // Not configurable (the guest's doing): defineProperty below reports it.
      }
    }
    defineProperty(target, key, descriptor)
  }

  /** A promise of ours whose `then` never looks up a species: it has its own `constructor` of undefined. */
  function withoutSpecies<T>(promise: T): T {
    defineProperty(promise, 'constructor', dataDescriptor(undefined, false))
    return promise
  }

  function finish(status: 'ok' | 'error' | 'limit', payload: string): void {
    if (finished) return
    flushLogs()
    finished = true
    host.done(status, payload, logsDropped)
  }

  /** An own data property's string value, read without running a getter; undefined otherwise. */
  function ownString(object: object, key: string): string | undefined {
    const value = dataValue(getOwnPropertyDescriptor(object, key))
    return typeof value === 'string' ? value : undefined
  }

  function describeThrown(error: unknown): string {
    let name: string | undefined
    let message: string
    let stack: string | undefined
    try {
      if (codec.isError(error)) {
        const e = error as { name?: unknown; message?: unknown; stack?: unknown }
        name = typeof e.name === 'string' ? e.name : 'Error'
        message = typeof e.message === 'string' ? e.message : StringCtor(e.message)
        stack = typeof e.stack === 'string' ? e.stack : undefined
      } else if (typeof error === 'object' && error !== null && ownString(error, 'message') !== undefined) {
        // Error-shaped without Error.prototype: `throw { name, message }`, or an error whose
        // prototype the guest removed. Its own fields, as it would read them.
        message = ownString(error, 'message') as string
        name = ownString(error, 'name') ?? 'Error'
        stack = ownString(error, 'stack')
      } else {
        const args: unknown[] = list()
        args[0] = error
        message = typeof error === 'string' ? error : inspect.format(args)
      }
    } catch {
      return UNDESCRIBABLE
    }
    return stringRecord(['name', name as string, 'message', message, 'stack', stack as string])
  }

  // Identity check only: reading a property of a thrown value could run a guest Proxy trap.
  function isLimit(error: unknown): boolean {
    return codec.isLimitError(error)
  }

  /** Ends the run with what the guest threw. Never throws: the run always reports. */
  function failWith(error: unknown): void {
    let payload: string
    let status: 'limit' | 'error' = 'error'
    try {
      if (isLimit(error)) {
        const e = error as { code: string; message: string }
        status = 'limit'
        payload = stringRecord(['code', e.code, 'message', e.message])
      } else {
        payload = describeThrown(error)
      }
    } catch {
      status = 'error'
      payload = UNDESCRIBABLE
    }
    finish(status, payload)
  }

  // ---- console -------------------------------------------------------------------
  // Entries reach the host in batches, one host call for many: a call per entry was most of the
  // cost of logging in every engine. A batch is the entries packed as `<level letter><length>:
  // <message>`, which the host unpacks by length (nothing to escape here). It is sent:
  // - at once for the first entry of a turn, so a host streaming events sees it while the guest
  //   goes on (or spins), and a program that logs and then runs out of memory has shown at least
  //   that much wherever the backend cannot ask for the rest;
  // - at the end of the turn (a microtask queued with that first entry), so every await flushes;
  // - at LOG_BATCH_ENTRIES entries or LOG_BATCH_CHARS characters;
  // - before a tool call and before the result, so the host sees them in the order written;
  // - when the backend asks (`flushLogs`), after it stopped the guest from outside.
  // Where the backend gives `storeLog` (memory it can read whatever the guest does next), each
  // entry is stored there at once instead, and the same moments tell the host to read it (so the
  // first entry of a turn is still seen at once, while the guest may spin).
  // The same numbers as core's backend/log-entries.ts (this file imports nothing).
  const LOG_BATCH_ENTRIES = 256
  const LOG_BATCH_CHARS = 16 * 1024
  const LEVEL_LETTERS: Record<string, string> = create(null)
  LEVEL_LETTERS.log = 'l'
  LEVEL_LETTERS.info = 'i'
  LEVEL_LETTERS.warn = 'w'
  LEVEL_LETTERS.error = 'e'
  LEVEL_LETTERS.debug = 'd'
  const UPPER_LETTERS: Record<string, string> = create(null)
  UPPER_LETTERS.log = 'L'
  UPPER_LETTERS.info = 'I'
  UPPER_LETTERS.warn = 'W'
  UPPER_LETTERS.error = 'E'
  UPPER_LETTERS.debug = 'D'
  const JOIN_NOTHING = ['']
  const settledForTurns = withoutSpecies(apply(promiseResolve, PromiseCtor, []) as Promise<void>)
  const storeLog = typeof host.storeLog === 'function' ? host.storeLog : undefined
  let logParts: string[] = list()
  let logPartCount = 0
  let logChars = 0
  /** Entries went to `storeLog` since the host last read it. */
  let logStored = false
  /** A first entry went out and the microtask that ends its turn is queued. */
  let logTurnOpen = false
  /**
   * Inside emit or a flush. A backend may pull the batch from the engine's interrupt check while
   * the guest computes (QuickJS workers: `flushLogs(true)`), which can land in the middle of
   * either: that call then does nothing, and the entries go with the next one.
   */
  let logBusy = false

  function flushLogs(): void {
    const was = logBusy
    logBusy = true
    try {
      sendLogs()
    } finally {
      logBusy = was
    }
  }

  function sendLogs(): void {
    if (logStored) {
      logStored = false
      host.log('')
    }
    if (logPartCount === 0) return
    const parts = logParts
    logParts = list()
    logPartCount = 0
    logChars = 0
    // The real Array.prototype only now, for the engine's fast join; our own elements are all it reads.
    setPrototypeOf(parts, arrayPrototype)
    host.log(apply(arrayJoin, parts, JOIN_NOTHING) as string)
  }

  function endLogTurn(): void {
    logTurnOpen = false
    if (!finished) flushLogs()
  }

  function emit(level: string, args: unknown[]): void {
    if (finished) return
    const was = logBusy
    logBusy = true
    try {
      keepEntry(level, args)
    } finally {
      logBusy = was
    }
  }

  function keepEntry(level: string, args: unknown[]): void {
    if (logCount >= maxLogEntries) {
      logsDropped++
      return
    }
    logCount++
    let message: string
    try {
      message = inspect.format(args)
    } catch (error) {
      message = '[cordon: could not format log arguments]'
    }
    // Cut early so a huge string is not copied to the host; the host applies the exact byte cap.
    if (message.length > maxLogBytes + 1) message = apply(stringSlice, message, [0, maxLogBytes + 1]) as string
    const values = logArgs ? argsWire(args) : undefined
    // With values: the level's letter in upper case, then the values' wire, length-prefixed too.
    const entry =
      values === undefined
        ? (LEVEL_LETTERS[level] as string) + message.length + ':' + message
        : (UPPER_LETTERS[level] as string) + message.length + ':' + message + values.length + ':' + values
    // The last entry the run keeps: nothing follows it, so it need not wait for the turn to end.
    const last = logCount === maxLogEntries
    if (storeLog !== undefined) {
      // No room: the host reads (and frees) the store, then this entry goes in, or past it.
      if (!storeLog(entry)) {
        host.log('')
        if (!storeLog(entry)) host.log(entry)
      }
      logStored = true
    } else {
      logParts[logPartCount++] = entry
      logChars += message.length + (values === undefined ? 0 : values.length)
    }
    if (!logTurnOpen) {
      logTurnOpen = true
      void apply(promiseThen, settledForTurns, [endLogTurn])
      flushLogs()
    } else if (last || logPartCount >= LOG_BATCH_ENTRIES || logChars >= LOG_BATCH_CHARS) flushLogs()
  }

  /**
   * A console call's arguments in wire form, within the entry's budget (maxLogBytes); undefined
   * when they are over it or hold a value the model cannot carry (a function, a symbol): the
   * message stands alone then.
   */
  function argsWire(args: unknown[]): string | undefined {
    try {
      return codec.encode(args, maxLogBytes, 'console arguments')
    } catch {
      return undefined
    }
  }

  function makeLogger(level: string) {
    return function (...args: unknown[]) {
      emit(level, args)
    }
  }

  // ---- tools ---------------------------------------------------------------------
  /**
   * A tool's failure as the guest's own error: the realm's class for a built-in name, else an
   * Error with the tool's name as an own property; the string code too. Defined, not assigned:
   * a setter the guest put on Error.prototype never runs for it.
   */
  function toolError(failure: unknown): Error {
    const name = own(failure, 'name')
    const message = own(failure, 'message')
    const code = own(failure, 'code')
    const text = typeof message === 'string' ? message : 'tool failed'
    let error: Error
    switch (name) {
      case 'TypeError':
        error = new TypeErrorCtor(text)
        break
      case 'RangeError':
        error = new RangeErrorCtor(text)
        break
      case 'SyntaxError':
        error = new SyntaxErrorCtor(text)
        break
      case 'ReferenceError':
        error = new ReferenceErrorCtor(text)
        break
      case 'EvalError':
        error = new EvalErrorCtor(text)
        break
      case 'URIError':
        error = new URIErrorCtor(text)
        break
      default:
        error = new ErrorCtor(text)
        if (typeof name === 'string' && name !== 'Error') defineProperty(error, 'name', dataDescriptor(name, true))
    }
    if (typeof code === 'string') defineProperty(error, 'code', dataDescriptor(code, true))
    return error
  }

  function toolErrorFrom(payload: string): Error {
    let parsed: unknown
    try {
      parsed = jsonParse(payload)
    } catch {
      parsed = undefined
    }
    return toolError(parsed)
  }

  /** The host's own promise maker (see RelayFunctions.callPromise), when it has one. */
  const callPromise = typeof host.callPromise === 'function' ? host.callPromise : undefined

  /**
   * The wire text of a primitive argument, exactly as the codec writes it, without the codec's
   * per-call setup (~13 µs of interpreted QuickJS, most of a tool call's guest time); undefined
   * for anything else, and whenever the budget is small enough for the codec's limit to matter.
   */
  function primitiveWire(value: unknown): string | undefined {
    if (maxOutputBytes < 64) return undefined
    switch (typeof value) {
      case 'number':
        return isFiniteNumber(value) && !objectIs(value, -0) ? StringCtor(value) : undefined
      case 'boolean':
        return value ? 'true' : 'false'
      case 'undefined':
        return '{"$":"undefined"}'
      case 'string': {
        if (value.length + 2 > maxOutputBytes) return undefined
        const text = jsonStringify(value)
        return text.length > maxOutputBytes ? undefined : text
      }
    }
    return value === null ? 'null' : undefined
  }

  function callAsync(name: string, args: unknown): Promise<unknown> {
    if (finished) return new PromiseCtor(() => {})
    let wire: string
    try {
      wire = primitiveWire(args) ?? codec.encode(args, maxOutputBytes, 'tool arguments')
    } catch (error) {
      if (isLimit(error)) {
        failWith(error)
        return new PromiseCtor(() => {})
      }
      // What the codec threw for the guest's arguments: its TypeError, passed on as it is.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return new PromiseCtor((_, reject) => reject(error))
    }
    flushLogs()
    if (callPromise !== undefined) return callPromise(name, wire)
    const id = ++callSeq
    const promise = new PromiseCtor((resolve, reject) => {
      pending[id] = { resolve, reject }
    })
    host.call(id, name, wire)
    return promise
  }

  function callSync(name: string, args: unknown): unknown {
    if (finished) throw new ErrorCtor('the run has ended')
    let wire: string
    try {
      wire = primitiveWire(args) ?? codec.encode(args, maxOutputBytes, 'tool arguments')
    } catch (error) {
      if (isLimit(error)) failWith(error)
      throw error
    }
    flushLogs()
    const reply: unknown = jsonParse(host.callSync(name, wire))
    if (own(reply, 'ok') === true) return codec.decodeTree(own(reply, 'value'))
    throw toolError(reply)
  }

  /** `a.b.c` → ['a', 'b', 'c'], without String.prototype.split (the guest may have replaced it). */
  function splitName(name: string): string[] {
    const parts: string[] = list()
    let from = 0
    for (;;) {
      const dot = apply(stringIndexOf, name, ['.', from]) as number
      parts[parts.length] = apply(stringSlice, name, dot < 0 ? [from] : [from, dot]) as string
      if (dot < 0) return parts
      from = dot + 1
    }
  }

  function installTool(name: string, sync: boolean): void {
    const path = splitName(name)
    let target: Record<string, unknown> = G
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i] as string
      let next = own(target, key) as Record<string, unknown> | undefined
      if (typeof next !== 'object' || next === null) {
        next = {}
        defineOwn(target, key, dataDescriptor(next, false))
      }
      target = next
    }
    const fn = sync
      ? function (args?: unknown) {
          return callSync(name, args)
        }
      : function (args?: unknown) {
          return callAsync(name, args)
        }
    const key = path[path.length - 1] as string
    const nameDescriptor = create(null) as PropertyDescriptor
    nameDescriptor.value = key
    defineProperty(fn, 'name', nameDescriptor)
    defineOwn(target, key, dataDescriptor(fn, true))
    const installed = create(null) as { target: Record<string, unknown>; key: string; fn: Function }
    installed.target = target
    installed.key = key
    installed.fn = fn
    installedTools[installedTools.length] = installed
  }

  /**
   * A session runs one program after another in this context; each `install` starts a new run.
   * What belonged to the last run goes: its tools (this run may be granted fewer), its timers and
   * pending calls (the host stopped delivering them), its log count. Guest state stays.
   */
  function resetForNextRun(): void {
    finished = false
    logCount = 0
    logsDropped = 0
    logParts = list()
    logPartCount = 0
    logChars = 0
    logStored = false
    for (const id in pending) delete pending[id]
    for (const id in timers) delete timers[id]
    if (installedFetch !== undefined) {
      const names = keys(installedFetch)
      for (let i = 0; i < names.length; i++) {
        const name = names[i] as string
        try {
          if (own(G, name) === own(installedFetch, name)) delete G[name]
        } catch {
          // The guest made it non-configurable; the host refuses fetch calls of a run without fetch.
        }
      }
      installedFetch = undefined
    }
    const previous = installedTools
    installedTools = list()
    for (let i = 0; i < previous.length; i++) {
      const { target, key, fn } = previous[i] as { target: Record<string, unknown>; key: string; fn: Function }
      try {
        if (own(target, key) === fn) delete target[key]
      } catch {
        // The guest froze or trapped its own namespace object; the host still refuses the call.
      }
    }
  }

  // ---- timers --------------------------------------------------------------------
  function addTimer(fn: unknown, delay: unknown, args: unknown[], repeat: boolean): number {
    if (typeof fn !== 'function') throw new TypeErrorCtor('The "callback" argument must be a function')
    let ms = +(delay as number)
    if (!(ms >= 1)) ms = repeat ? 1 : 0
    if (ms > 2147483647) ms = 1
    const id = ++timerSeq
    const timer = create(null) as { fn: Function; args: unknown[]; repeat: number; due: number }
    timer.fn = fn
    timer.args = args
    timer.repeat = repeat ? ms : -1
    timer.due = virtualNow + ms
    timers[id] = timer
    if (!finished) host.timer(id, ms)
    return id
  }

  function clearTimer(id: unknown): void {
    const key = +(id as number)
    if (timers[key] === undefined) return
    delete timers[key]
    if (!finished) host.timer(key, -1)
  }

  function define(name: string, value: unknown): void {
    defineOwn(G, name, dataDescriptor(value, false))
  }

  // The engine's own structuredClone where it has one; ours (structured-clone.ts) where it has none.
  const structuredClone = typeof own(G, 'structuredClone') === 'function' ? undefined : structuredCloneFactory(p)

  /**
   * A durable run's `Date` and `Math.random`: the same values on every replay. `Date` keeps the
   * real prototype, so its instances are real dates for the guest and for the codec.
   */
  function installClock(start: number, seed: number[]): void {
    virtualNow = start
    const RealDate = DateCtor
    const dateToString = RealDate.prototype.toString
    const Date = function Date(this: unknown, ...args: unknown[]) {
      if (new.target === undefined) return apply(dateToString, construct(RealDate, [virtualNow]), [])
      return construct(RealDate, args.length === 0 ? [virtualNow] : args, new.target)
    } as unknown as DateConstructor
    const fixed = create(null) as PropertyDescriptor
    fixed.value = RealDate.prototype
    defineProperty(Date, 'prototype', fixed)
    defineProperty(
      Date,
      'now',
      dataDescriptor(function now() {
        return virtualNow
      }, false),
    )
    defineProperty(Date, 'parse', dataDescriptor(RealDate.parse, false))
    defineProperty(Date, 'UTC', dataDescriptor(RealDate.UTC, false))
    defineProperty(RealDate.prototype, 'constructor', dataDescriptor(Date, false))
    define('Date', Date)
    // sfc32: small, fast, and the same sequence on every engine for the same seed.
    let a = (seed[0] as number) | 0
    let b = (seed[1] as number) | 0
    let c = (seed[2] as number) | 0
    let d = (seed[3] as number) | 0
    const random = function random(): number {
      const t = (((a + b) | 0) + d) | 0
      d = (d + 1) | 0
      a = b ^ (b >>> 9)
      b = (c + (c << 3)) | 0
      c = (c << 21) | (c >>> 11)
      c = (c + t) | 0
      return (t >>> 0) / 4294967296
    }
    const math = own(G, 'Math')
    if (typeof math === 'object' && math !== null) defineProperty(math, 'random', dataDescriptor(random, false))
  }

  const runtime: GuestRuntimeWithCodec = {
    codec,
    install(setup: string): void {
      const parsed = jsonParse(setup) as {
        tools: { name: string; sync: boolean }[]
        limits: { maxOutputBytes: number; maxLogEntries: number; maxLogBytes: number }
        logArgs?: boolean
        globals: unknown
        plainGlobals?: boolean
        fetch?: boolean
        clock?: { now: number; seed: number[] }
      }
      resetForNextRun()
      if (parsed.clock !== undefined) installClock(parsed.clock.now, parsed.clock.seed)
      maxOutputBytes = parsed.limits.maxOutputBytes
      maxLogEntries = parsed.limits.maxLogEntries
      maxLogBytes = parsed.limits.maxLogBytes
      logArgs = parsed.logArgs === true
      const consoleObject: Record<string, unknown> = {}
      const levels = ['log', 'info', 'warn', 'error', 'debug']
      for (let i = 0; i < levels.length; i++) {
        const level = levels[i] as string
        defineProperty(consoleObject, level, dataDescriptor(makeLogger(level), true))
      }
      // Aliases Node has, mapped to the closest level.
      defineProperty(consoleObject, 'trace', dataDescriptor(makeLogger('debug'), true))
      defineProperty(consoleObject, 'dir', dataDescriptor(makeLogger('log'), true))
      define('console', consoleObject)
      define('setTimeout', function setTimeout(fn: unknown, delay?: unknown, ...args: unknown[]) {
        return addTimer(fn, delay, args, false)
      })
      define('setInterval', function setInterval(fn: unknown, delay?: unknown, ...args: unknown[]) {
        return addTimer(fn, delay, args, true)
      })
      define('clearTimeout', function clearTimeout(id: unknown) {
        clearTimer(id)
      })
      define('clearInterval', function clearInterval(id: unknown) {
        clearTimer(id)
      })
      const resolved = withoutSpecies(apply(promiseResolve, PromiseCtor, []) as Promise<void>)
      define('queueMicrotask', function queueMicrotask(fn: unknown) {
        if (typeof fn !== 'function') throw new TypeErrorCtor('The "callback" argument must be a function')
        void apply(promiseThen, resolved, [
          function () {
            try {
              apply(fn, undefined, [])
            } catch (error) {
              failWith(error)
            }
          },
        ])
      })
      if (structuredClone !== undefined) define('structuredClone', structuredClone)
      const tools = parsed.tools
      for (let i = 0; i < tools.length; i++) {
        const tool = tools[i] as { name: string; sync: boolean }
        installTool(tool.name, tool.sync)
      }
      if (parsed.fetch === true) {
        const api = fetchApiFactory(p, utf8Factory(p), (args) => callAsync('fetch', args))
        installedFetch = create(null) as Record<string, unknown>
        const names = ['fetch', 'Headers', 'Request', 'Response']
        for (let i = 0; i < names.length; i++) {
          const name = names[i] as string
          installedFetch[name] = own(api, name)
          defineOwn(G, name, dataDescriptor(own(api, name), false))
        }
      }
      if (parsed.globals !== null && parsed.globals !== undefined) {
        // The host wrote these globals and says when they hold no tagged value: no walk then.
        const globals = (parsed.plainGlobals === true ? parsed.globals : codec.decodeTree(parsed.globals)) as Record<string, unknown>
        const names = keys(globals)
        for (let i = 0; i < names.length; i++) {
          const name = names[i] as string
          defineOwn(G, name, dataDescriptor(own(globals, name), true))
        }
      }
    },
    start(main: () => unknown): void {
      let result: unknown
      try {
        result = main()
      } catch (error) {
        failWith(error)
        return
      }
      const onValue = (value: unknown) => {
        if (finished) return
        let wire: string
        try {
          wire = codec.encode(value, maxOutputBytes, 'the result')
        } catch (error) {
          failWith(error)
          return
        }
        finish('ok', wire)
      }
      // `main` is the compiled async function, so `result` is a native promise that no guest code
      // holds; the captured `then` ignores any guest override of Promise.prototype.then, and its
      // own `constructor` keeps `then` from asking the guest's Promise for a species.
      try {
        void apply(promiseThen, withoutSpecies(result), [onValue, failWith])
      } catch (error) {
        failWith(error)
      }
    },
    settle(id: number, ok: boolean, payload: string): void {
      const entry = pending[id]
      if (entry === undefined || finished) return
      delete pending[id]
      if (!ok) {
        entry.reject(toolErrorFrom(payload))
        return
      }
      let value: unknown
      try {
        value = codec.decodeTrusted(payload)
      } catch (error) {
        entry.reject(error)
        return
      }
      entry.resolve(value)
    },
    answer(ok: boolean, payload: string): unknown {
      if (!ok) throw toolErrorFrom(payload)
      return codec.decodeTrusted(payload)
    },
    flushLogs(pull?: boolean): void {
      if (finished || (pull === true && logBusy)) return
      // After a stop: an uncatchable interrupt skips `finally` blocks, so a stop inside emit
      // leaves the flag set. What the guest wrote is sent all the same.
      logBusy = false
      flushLogs()
    },
    stall(): void {
      if (finished) return
      // The runtime's own records must agree: a call or timer it still holds means the host's
      // view is behind (no harm in waiting).
      for (const id in pending) if (id !== '') return
      for (const id in timers) if (id !== '') return
      finish('limit', STALLED)
    },
    fire(id: number): void {
      const timer = timers[id]
      if (timer === undefined || finished) return
      if (timer.due > virtualNow) virtualNow = timer.due
      if (timer.repeat >= 0) {
        timer.due = virtualNow + timer.repeat
        host.timer(id, timer.repeat)
      } else delete timers[id]
      try {
        apply(timer.fn, undefined, timer.args)
      } catch (error) {
        failWith(error)
      }
    },
  }
  return runtime
}
