import { runsOnNode } from './host-platform.js'
import { nodeBuiltin } from './node-builtin.js'
import type { WasmModuleInput } from './options.js'

/**
 * The default build: bellard's QuickJS 2025-09-13 as quickjs-emscripten 0.32.0 ships it, with
 * src/guest/buffer-guard.ts in front of the three built-ins through which that version reads past
 * a shrunk or detached buffer (bellard/quickjs #477, #478, #492). Its quickjs-ng 0.12.1 build
 * (`@jitl/quickjs-ng-wasmfile-release-sync`) fixes those itself, but reports the wrong line for the
 * commonest runtime error (reading a property of undefined or null: the line of the last call
 * before it), and plain array and FinalizationRegistry code aborts it (quickjs-ng #1562, #1352).
 * The README's "Which QuickJS build" has the evidence and how to choose the other.
 */
export const DEFAULT_VARIANT_PACKAGE = '@jitl/quickjs-wasmfile-release-sync'

/** The package export of quickjs-wasi's engine (quickjs-ng 0.18.0 compiled to WASI). */
export const WASI_WASM_SPECIFIER = 'quickjs-wasi/quickjs.wasm'

/** The package export that points at the default variant's `.wasm` file. */
export const DEFAULT_WASM_SPECIFIER = `${DEFAULT_VARIANT_PACKAGE}/wasm`

/** Compiles whatever the user gave (or the default variant's file) into a WebAssembly.Module. */
export async function compileWasm(input: WasmModuleInput): Promise<WebAssembly.Module> {
  return (await compileWasmKeepingBytes(input)).module
}

/** compileWasm, and the bytes it compiled (undefined when given a compiled module). */
export async function compileWasmKeepingBytes(input: WasmModuleInput): Promise<{ module: WebAssembly.Module; bytes?: Uint8Array }> {
  if (input instanceof WebAssembly.Module) return { module: input }
  if (!(input instanceof ArrayBuffer) && !ArrayBuffer.isView(input)) {
    const url = await toUrl(input)
    if (url.protocol !== 'file:' && typeof WebAssembly.compileStreaming === 'function') return compileStreaming(url)
  }
  const bytes =
    input instanceof ArrayBuffer
      ? new Uint8Array(input)
      : ArrayBuffer.isView(input)
        ? copyBytes(input)
        : copyBytes(await readBytes(await toUrl(input)))
  return { module: await WebAssembly.compile(bytes), bytes }
}

/** Where the default variant's `.wasm` lives, found by the host's own module resolution. */
export function defaultWasmUrl(): Promise<URL> {
  return wasmUrlOf(DEFAULT_WASM_SPECIFIER)
}

/** Where a package export (a `.wasm` file) lives, found by the host's own module resolution. */
export async function wasmUrlOf(specifier: string): Promise<URL> {
  const meta = import.meta as { resolve?: (specifier: string) => string }
  // Node ≥20.6, Bun, Deno and browsers with an import map have import.meta.resolve (called as a
  // method: Bun refuses it unbound); some test runners rewrite import.meta without it, and then
  // Node's require resolver answers instead.
  if (typeof meta.resolve === 'function') return new URL(meta.resolve(specifier))
  const { createRequire } = await nodeBuiltin<typeof import('node:module')>('node:module')
  const { pathToFileURL } = await nodeBuiltin<typeof import('node:url')>('node:url')
  return pathToFileURL(createRequire(import.meta.url).resolve(specifier))
}

/**
 * quickjs-wasi's `.wasm`: on Node, Bun and Deno the package export; in browsers the copy the
 * build puts beside this module (dist/quickjs-wasi.wasm), which bundlers serve with it.
 */
export function defaultWasiWasmUrl(): Promise<URL> {
  return runsOnNode() ? wasmUrlOf(WASI_WASM_SPECIFIER) : Promise.resolve(new URL('./quickjs-wasi.wasm', import.meta.url))
}

/** WebAssembly.compile takes bytes backed by a plain ArrayBuffer; copying is cheap next to compiling. */
function copyBytes(view: ArrayBufferView): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(view.byteLength)
  bytes.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength))
  return bytes
}

/**
 * Fetched once; compiled as it downloads (browsers), while the same bytes are kept to check the
 * shipped engine image against. A server that does not say `application/wasm` gets the plain compile.
 */
async function compileStreaming(url: URL): Promise<{ module: WebAssembly.Module; bytes: Uint8Array }> {
  const response = await fetch(url)
  if (!response.ok) throw new Error(`fetching ${url.href} failed with HTTP ${response.status}`)
  const [streamed, buffer] = await Promise.all([
    WebAssembly.compileStreaming(response.clone()).catch(() => undefined),
    response.arrayBuffer(),
  ])
  const bytes = new Uint8Array(buffer)
  return { module: streamed ?? (await WebAssembly.compile(bytes)), bytes }
}

async function toUrl(input: URL | string): Promise<URL> {
  if (input instanceof URL) return input
  // Anything with a scheme (but not a Windows drive letter) is a URL; the rest is a file path.
  if (/^[a-z][a-z0-9+.-]+:/i.test(input)) return new URL(input)
  const { pathToFileURL } = await nodeBuiltin<typeof import('node:url')>('node:url')
  return pathToFileURL(input)
}

/** The bytes at `url`: a file through node:fs, anything else through fetch. */
export async function readBytes(url: URL): Promise<Uint8Array> {
  if (url.protocol === 'file:') {
    // Node, Bun and Deno all read files through node:fs; fetch() of file: URLs is not universal.
    const { readFile } = await nodeBuiltin<typeof import('node:fs/promises')>('node:fs/promises')
    return readFile(url)
  }
  const response = await fetch(url)
  if (!response.ok) throw new Error(`fetching ${url.href} failed with HTTP ${response.status}`)
  return new Uint8Array(await response.arrayBuffer())
}
