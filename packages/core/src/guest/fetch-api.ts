/**
 * The guest's `fetch`, `Headers`, `Request` and `Response`: a WHATWG-shaped subset over one
 * reserved host call. Everything here is convenience for the guest; the host checks every field
 * again (URL, method, headers, body, sizes), so a guest that tampers with these objects only
 * breaks its own requests. Bodies are strings, ArrayBuffers or typed arrays; responses are read
 * whole (`text()`, `json()`, `arrayBuffer()`, `bytes()`).
 *
 * Self-contained: it is stringified into guest engines (no imports, no template literals).
 */
import type { Primordials } from './primordials.js'
import type { Utf8 } from './utf8.js'

type Constructor = abstract new (...args: never[]) => unknown

export interface FetchApi {
  fetch: (input: unknown, init?: unknown) => Promise<unknown>
  Headers: Constructor
  Request: Constructor
  Response: Constructor
}

export function createFetchApi(p: Primordials, utf8: Utf8, call: (args: unknown) => Promise<unknown>): FetchApi {
  'use strict'
  const { apply, isArray, list, own, StringCtor, TypeErrorCtor, PromiseCtor, promiseThen, jsonParse, arraySort, arrayValues } = p
  const { stringCharCodeAt, typedArrayTag, arrayBufferByteLength, Uint8ArrayCtor, create } = p
  const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const regexpTest = RegExp.prototype.test
  const charCodeAt = (text: string, i: number): number => apply(stringCharCodeAt, text, [i])

  function resolved<T>(value: T): Promise<T> {
    return new PromiseCtor((resolve) => resolve(value))
  }
  function rejected(error: unknown): Promise<never> {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    return new PromiseCtor((_, reject) => reject(error))
  }

  /** The bytes of a body the guest gave: a string stays a string (the host encodes it). */
  function bodyOf(body: unknown): string | Uint8Array | undefined {
    if (body === undefined || body === null) return undefined
    if (typeof body === 'string') return body
    if (typeof body === 'object') {
      const tag = apply(typedArrayTag, body, []) as string | undefined
      if (tag !== undefined) {
        const view = body as Uint8Array
        return new Uint8ArrayCtor(view.buffer, view.byteOffset, view.byteLength).slice()
      }
      try {
        apply(arrayBufferByteLength, body, [])
        return new Uint8ArrayCtor(body as ArrayBuffer).slice()
      } catch {
        // Not an ArrayBuffer: refused below.
      }
    }
    throw new TypeErrorCtor('fetch: a body must be a string, an ArrayBuffer or a typed array')
  }

  // ---- Headers ------------------------------------------------------------------------
  function headerName(name: unknown): string {
    const text = StringCtor(name)
    if (!apply(regexpTest, TOKEN, [text])) throw new TypeErrorCtor('Headers: "' + text + '" is not a valid header name')
    return text.toLowerCase()
  }
  function headerValue(value: unknown): string {
    const text = StringCtor(value).trim()
    for (let i = 0; i < text.length; i++) {
      const c = charCodeAt(text, i)
      if (c === 10 || c === 13 || c === 0) throw new TypeErrorCtor('Headers: a header value cannot contain CR, LF or NUL')
    }
    return text
  }

  class Headers {
    #pairs: [string, string][] = list()
    constructor(init?: unknown) {
      if (init === undefined || init === null) return
      if (init instanceof Headers) {
        init.forEach((value: string, name: string) => this.append(name, value))
      } else if (isArray(init)) {
        for (let i = 0; i < init.length; i++) {
          const pair = init[i] as unknown
          if (!isArray(pair) || pair.length !== 2) throw new TypeErrorCtor('Headers: each entry must be a [name, value] pair')
          this.append(pair[0], pair[1])
        }
      } else if (typeof init === 'object') {
        const names = p.keys(init)
        for (let i = 0; i < names.length; i++) this.append(names[i], own(init, names[i] as string))
      } else throw new TypeErrorCtor('Headers: init must be an object, an array of pairs or a Headers')
    }
    append(name: unknown, value: unknown): void {
      const pairs = this.#pairs
      const pair: [string, string] = list() as unknown as [string, string]
      pair[0] = headerName(name)
      pair[1] = headerValue(value)
      pairs[pairs.length] = pair
    }
    delete(name: unknown): void {
      const key = headerName(name)
      const kept: [string, string][] = list()
      for (let i = 0; i < this.#pairs.length; i++)
        if ((this.#pairs[i] as [string, string])[0] !== key) kept[kept.length] = this.#pairs[i] as [string, string]
      this.#pairs = kept
    }
    get(name: unknown): string | null {
      const key = headerName(name)
      let found: string | null = null
      for (let i = 0; i < this.#pairs.length; i++) {
        const pair = this.#pairs[i] as [string, string]
        if (pair[0] === key) found = found === null ? pair[1] : found + ', ' + pair[1]
      }
      return found
    }
    has(name: unknown): boolean {
      return this.get(name) !== null
    }
    set(name: unknown, value: unknown): void {
      this.delete(name)
      this.append(name, value)
    }
    forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
      const entries = this.#combined()
      for (let i = 0; i < entries.length; i++) apply(callback, thisArg, [(entries[i] as string[])[1], (entries[i] as string[])[0], this])
    }
    entries(): IterableIterator<[string, string]> {
      return apply(arrayValues, this.#combined(), []) as IterableIterator<[string, string]>
    }
    keys(): IterableIterator<string> {
      const entries = this.#combined()
      const names: string[] = []
      for (let i = 0; i < entries.length; i++) names[i] = (entries[i] as string[])[0] as string
      return apply(arrayValues, names, []) as IterableIterator<string>
    }
    values(): IterableIterator<string> {
      const entries = this.#combined()
      const values: string[] = []
      for (let i = 0; i < entries.length; i++) values[i] = (entries[i] as string[])[1] as string
      return apply(arrayValues, values, []) as IterableIterator<string>
    }
    [Symbol.iterator](): IterableIterator<[string, string]> {
      return this.entries()
    }
    /** Sorted by name, values of one name joined (set-cookie kept apart), as WHATWG iterates. */
    #combined(): [string, string][] {
      const names: string[] = []
      for (let i = 0; i < this.#pairs.length; i++) {
        const name = (this.#pairs[i] as [string, string])[0]
        let seen = false
        for (let j = 0; j < names.length; j++) if (names[j] === name) seen = true
        if (!seen) names[names.length] = name
      }
      apply(arraySort, names, [])
      const out: [string, string][] = []
      for (let i = 0; i < names.length; i++) {
        const name = names[i] as string
        if (name === 'set-cookie') {
          for (let j = 0; j < this.#pairs.length; j++) {
            const pair = this.#pairs[j] as [string, string]
            if (pair[0] === name) out[out.length] = [name, pair[1]]
          }
        } else out[out.length] = [name, this.get(name) as string]
      }
      return out
    }
    /** The pairs as the host reads them. */
    static list(headers: Headers): [string, string][] {
      const out: [string, string][] = list()
      for (let i = 0; i < headers.#pairs.length; i++) {
        const pair = headers.#pairs[i] as [string, string]
        out[out.length] = [pair[0], pair[1]]
      }
      return out
    }
  }

  // ---- Request ------------------------------------------------------------------------
  class Request {
    readonly url: string
    readonly method: string
    readonly headers: Headers
    readonly redirect: string
    #body: string | Uint8Array | undefined
    constructor(input: unknown, init?: unknown) {
      const from = input instanceof Request ? input : undefined
      const options = (init === undefined || init === null ? {} : init) as Record<string, unknown>
      this.url = from !== undefined ? from.url : StringCtor(input)
      const method = own(options, 'method') ?? (from !== undefined ? from.method : 'GET')
      this.method = StringCtor(method)
      const upper = this.method.toUpperCase()
      if (
        upper === 'GET' ||
        upper === 'HEAD' ||
        upper === 'POST' ||
        upper === 'PUT' ||
        upper === 'DELETE' ||
        upper === 'OPTIONS' ||
        upper === 'PATCH'
      ) {
        this.method = upper
      }
      const headers = own(options, 'headers')
      this.headers = new Headers(headers !== undefined ? headers : from !== undefined ? from.headers : undefined)
      this.redirect = StringCtor(own(options, 'redirect') ?? (from !== undefined ? from.redirect : 'follow'))
      const body = own(options, 'body')
      this.#body = body !== undefined ? bodyOf(body) : from !== undefined ? from.#body : undefined
      if (this.#body !== undefined && (this.method === 'GET' || this.method === 'HEAD')) {
        throw new TypeErrorCtor('Request with ' + this.method + ' method cannot have body')
      }
      if (typeof this.#body === 'string' && !this.headers.has('content-type')) this.headers.set('content-type', 'text/plain;charset=UTF-8')
    }
    static wire(request: Request): Record<string, unknown> {
      const args = create(null) as Record<string, unknown>
      args.url = request.url
      args.method = request.method
      args.headers = Headers.list(request.headers)
      if (request.#body !== undefined) args.body = request.#body
      args.redirect = request.redirect
      return args
    }
  }

  // ---- Response -----------------------------------------------------------------------
  class Response {
    readonly status: number
    readonly statusText: string
    readonly headers: Headers
    readonly url: string
    readonly redirected: boolean
    readonly type: string
    #bytes: Uint8Array
    #used = false
    constructor(body?: unknown, init?: unknown) {
      const options = (init === undefined || init === null ? {} : init) as Record<string, unknown>
      const status = own(options, 'status') ?? 200
      if (typeof status !== 'number' || status < 200 || status > 599 || status % 1 !== 0) {
        throw new RangeError('Response: status must be an integer from 200 to 599')
      }
      this.status = status
      this.statusText = StringCtor(own(options, 'statusText') ?? '')
      this.headers = new Headers(own(options, 'headers'))
      const bytes = bodyOf(body)
      this.#bytes = typeof bytes === 'string' ? utf8.encode(bytes) : bytes === undefined ? new Uint8ArrayCtor(0) : bytes
      if (typeof body === 'string' && !this.headers.has('content-type')) this.headers.set('content-type', 'text/plain;charset=UTF-8')
      this.url = StringCtor(own(options, 'url') ?? '')
      this.redirected = own(options, 'redirected') === true
      this.type = own(options, 'url') === undefined ? 'default' : 'basic'
    }
    get ok(): boolean {
      return this.status >= 200 && this.status <= 299
    }
    get bodyUsed(): boolean {
      return this.#used
    }
    #take(): Uint8Array {
      if (this.#used) throw new TypeErrorCtor('Body is unusable: Body has already been read')
      this.#used = true
      return this.#bytes
    }
    arrayBuffer(): Promise<ArrayBuffer> {
      try {
        return resolved(this.#take().slice().buffer)
      } catch (error) {
        return rejected(error)
      }
    }
    bytes(): Promise<Uint8Array> {
      try {
        return resolved(this.#take().slice())
      } catch (error) {
        return rejected(error)
      }
    }
    text(): Promise<string> {
      try {
        return resolved(utf8.decode(this.#take()))
      } catch (error) {
        return rejected(error)
      }
    }
    json(): Promise<unknown> {
      try {
        return resolved(jsonParse(utf8.decode(this.#take())))
      } catch (error) {
        return rejected(error)
      }
    }
    clone(): Response {
      if (this.#used) throw new TypeErrorCtor('Response.clone: Body has already been read')
      const copy = new Response(this.#bytes.slice(), this)
      return copy
    }
  }

  function fetch(input: unknown, init?: unknown): Promise<unknown> {
    let args: Record<string, unknown>
    try {
      args = Request.wire(new Request(input, init))
    } catch (error) {
      return rejected(error)
    }
    return apply(promiseThen, call(args), [
      (reply: unknown) => {
        const body = own(reply, 'body')
        const options = create(null) as Record<string, unknown>
        options.status = own(reply, 'status')
        options.statusText = own(reply, 'statusText')
        options.headers = own(reply, 'headers')
        options.url = own(reply, 'url')
        options.redirected = own(reply, 'redirected')
        // Statuses below 200 or bodiless ones still make a Response, as fetch does.
        const status = options.status as number
        options.status = status >= 200 && status <= 599 ? status : 200
        const response = new Response(body, options)
        if (status !== options.status) p.defineProperty(response, 'status', p.dataDescriptor(status, true))
        return response
      },
    ])
  }

  return { fetch, Headers, Request, Response }
}
