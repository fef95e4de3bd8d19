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
import type { GuestHostFunctions, GuestRuntime } from './protocol.js'
import { createCodec } from './codec.js'
import { createInspect } from './inspect.js'

export interface GuestRuntimeWithCodec extends GuestRuntime {
  readonly codec: ReturnType<typeof createCodec>
}

export function cordonGuestRuntime(
  host: GuestHostFunctions,
  codecFactory: typeof createCodec,
  inspectFactory: typeof createInspect,
): GuestRuntimeWithCodec {
  'use strict'
  const G = globalThis as Record<string, unknown>
  const apply = Reflect.apply
  const defineProperty = Object.defineProperty
  const create = Object.create
  const jsonParse = JSON.parse
  const jsonStringify = JSON.stringify
  const PromiseCtor = Promise
  const promiseThen = Promise.prototype.then
  const ErrorCtor = Error
  const TypeErrorCtor = TypeError
  const StringCtor = String
  const stringSlice = String.prototype.slice

  const codec = codecFactory()
  const inspect = inspectFactory()

  let maxOutputBytes = 1024 * 1024
  let maxLogEntries = 100
  let maxLogBytes = 1000
  let logCount = 0
  let logsDropped = 0
  let finished = false
  let callSeq = 0
  let timerSeq = 0
  const pending: Record<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }> = create(null)
  const timers: Record<number, { fn: Function; args: unknown[]; repeat: number }> = create(null)
  /** Tool functions this runtime defined, so the next run of a session can take them back. */
  let installedTools: { target: Record<string, unknown>; key: string; fn: Function }[] = []

  function finish(status: 'ok' | 'error' | 'limit', payload: string): void {
    if (finished) return
    finished = true
    host.done(status, payload, logsDropped)
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
      } else {
        message = typeof error === 'string' ? error : inspect.format([error])
      }
    } catch {
      message = 'a value that could not be described was thrown'
    }
    return jsonStringify({ name, message, stack })
  }

  // Identity check only: reading a property of a thrown value could run a guest Proxy trap.
  function isLimit(error: unknown): boolean {
    return codec.isLimitError(error)
  }

  function failWith(error: unknown): void {
    if (isLimit(error)) {
      const e = error as { code: string; message: string }
      finish('limit', jsonStringify({ code: e.code, message: e.message }))
    } else {
      finish('error', describeThrown(error))
    }
  }

  // ---- console -------------------------------------------------------------------
  function emit(level: string, args: unknown[]): void {
    if (finished) return
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
    host.log(level, message)
  }

  function makeLogger(level: string) {
    return function (...args: unknown[]) {
      emit(level, args)
    }
  }

  // ---- tools ---------------------------------------------------------------------
  function toolError(payload: string): Error {
    let parsed: { name?: string; message?: string }
    try {
      parsed = jsonParse(payload)
    } catch {
      parsed = { message: 'tool failed' }
    }
    const message = typeof parsed.message === 'string' ? parsed.message : 'tool failed'
    return parsed.name === 'TypeError' ? new TypeErrorCtor(message) : new ErrorCtor(message)
  }

  function callAsync(name: string, args: unknown): Promise<unknown> {
    if (finished) return new PromiseCtor(() => {})
    let wire: string
    try {
      wire = codec.encode(args, maxOutputBytes, 'tool arguments')
    } catch (error) {
      if (isLimit(error)) {
        failWith(error)
        return new PromiseCtor(() => {})
      }
      return new PromiseCtor((_, reject) => reject(error))
    }
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
      wire = codec.encode(args, maxOutputBytes, 'tool arguments')
    } catch (error) {
      if (isLimit(error)) failWith(error)
      throw error
    }
    const reply = jsonParse(host.callSync(name, wire)) as { ok: boolean; value?: unknown; message?: string; name?: string }
    if (reply.ok) return codec.decodeTree(reply.value)
    throw toolError(jsonStringify({ name: reply.name, message: reply.message }))
  }

  function installTool(name: string, sync: boolean): void {
    const path = name.split('.')
    let target: Record<string, unknown> = G
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i] as string
      let next = target[key] as Record<string, unknown> | undefined
      if (typeof next !== 'object' || next === null) {
        next = {}
        defineProperty(target, key, { value: next, writable: true, configurable: true, enumerable: false })
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
    defineProperty(fn, 'name', { value: key })
    defineProperty(target, key, {
      value: fn,
      writable: true,
      configurable: true,
      enumerable: true,
    })
    installedTools[installedTools.length] = { target, key, fn }
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
    for (const id in pending) delete pending[id]
    for (const id in timers) delete timers[id]
    const previous = installedTools
    installedTools = []
    for (let i = 0; i < previous.length; i++) {
      const { target, key, fn } = previous[i] as { target: Record<string, unknown>; key: string; fn: Function }
      try {
        if (target[key] === fn) delete target[key]
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
    timers[id] = { fn, args, repeat: repeat ? ms : -1 }
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
    defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false })
  }

  const runtime: GuestRuntimeWithCodec = {
    codec,
    install(setup: string): void {
      const parsed = jsonParse(setup) as {
        tools: { name: string; sync: boolean }[]
        limits: { maxOutputBytes: number; maxLogEntries: number; maxLogBytes: number }
        globals: unknown
      }
      resetForNextRun()
      maxOutputBytes = parsed.limits.maxOutputBytes
      maxLogEntries = parsed.limits.maxLogEntries
      maxLogBytes = parsed.limits.maxLogBytes
      const consoleObject: Record<string, unknown> = {}
      const levels = ['log', 'info', 'warn', 'error', 'debug']
      for (let i = 0; i < levels.length; i++) {
        const level = levels[i] as string
        defineProperty(consoleObject, level, { value: makeLogger(level), writable: true, configurable: true, enumerable: true })
      }
      // Aliases Node has, mapped to the closest level.
      consoleObject.trace = makeLogger('debug')
      consoleObject.dir = makeLogger('log')
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
      const resolved = PromiseCtor.resolve()
      define('queueMicrotask', function queueMicrotask(fn: unknown) {
        if (typeof fn !== 'function') throw new TypeErrorCtor('The "callback" argument must be a function')
        apply(promiseThen, resolved, [
          function () {
            try {
              apply(fn as Function, undefined, [])
            } catch (error) {
              failWith(error)
            }
          },
        ])
      })
      const tools = parsed.tools
      for (let i = 0; i < tools.length; i++) {
        const tool = tools[i] as { name: string; sync: boolean }
        installTool(tool.name, tool.sync)
      }
      if (parsed.globals !== null && parsed.globals !== undefined) {
        const globals = codec.decodeTree(parsed.globals) as Record<string, unknown>
        const names = Object.keys(globals)
        for (let i = 0; i < names.length; i++) {
          const name = names[i] as string
          defineProperty(G, name, { value: globals[name], writable: true, configurable: true, enumerable: true })
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
      // `main` is the compiled async function, so `result` is a native promise; the captured
      // `then` ignores any guest override of Promise.prototype.then.
      try {
        apply(promiseThen, result, [onValue, failWith])
      } catch (error) {
        failWith(error)
      }
    },
    settle(id: number, ok: boolean, payload: string): void {
      const entry = pending[id]
      if (entry === undefined || finished) return
      delete pending[id]
      if (!ok) {
        entry.reject(toolError(payload))
        return
      }
      let value: unknown
      try {
        value = codec.decode(payload)
      } catch (error) {
        entry.reject(error)
        return
      }
      entry.resolve(value)
    },
    fire(id: number): void {
      const timer = timers[id]
      if (timer === undefined || finished) return
      if (timer.repeat >= 0) host.timer(id, timer.repeat)
      else delete timers[id]
      try {
        apply(timer.fn, undefined, timer.args)
      } catch (error) {
        failWith(error)
      }
    },
  }
  return runtime
}
