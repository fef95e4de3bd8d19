import { GUEST_RUNTIME_STEPS } from '../fresh-engine.js'
import { nodeBuiltin } from '../node-builtin.js'
import type { WasiModule } from './wasi-context.js'
import type { WasiImage } from './wasi-image.js'

/**
 * The engine image as the build ships it (dist/quickjs-wasi.image): "CORDONQI", the length of a
 * JSON header (u32, little-endian), the header, then quickjs-wasi's serialized snapshot, gzipped
 * (~360 KB instead of 2.1 MB). The header says what the image was taken from; a process uses it
 * only when its WASM bytes and guest runtime hash the same, and takes its own image otherwise.
 */
export interface ImageHeader {
  readonly format: typeof FORMAT
  /** quickjs-wasi's version (its JavaScript side restores the snapshot). */
  readonly quickjsWasi: string
  /** SHA-256 (hex) of the .wasm file. */
  readonly wasmSha256: string
  /** SHA-256 (hex) of what the image evaluated (runtimeFingerprint). */
  readonly runtimeSha256: string
  readonly seedAddress: number
  readonly timeOriginAddress: number
  readonly timeOriginValue: { readonly address: number; readonly boxing: string }
  /** Linear memory below the malloc heap, and what a fresh engine holds (wasi-maker.ts). */
  readonly staticBytes: number
  readonly baseBytes: number
}

/** A decoded image file: the image, and the sizes measured when it was made. */
export interface ShippedImage {
  readonly image: WasiImage
  readonly staticBytes: number
  readonly baseBytes: number
  readonly quickjsWasi: string
}

const MAGIC = 'CORDONQI'
const FORMAT = 1

export async function encodeImageFile(
  wasi: WasiModule,
  image: WasiImage,
  header: Omit<ImageHeader, 'format' | 'seedAddress' | 'timeOriginAddress' | 'timeOriginValue'>,
): Promise<Uint8Array> {
  const full: ImageHeader = {
    format: FORMAT,
    ...header,
    seedAddress: image.seedAddress,
    timeOriginAddress: image.timeOriginAddress,
    timeOriginValue: { address: image.timeOriginValue.address, boxing: image.timeOriginValue.boxing.toString() },
  }
  const json = new TextEncoder().encode(JSON.stringify(full))
  const body = await gzip(wasi.QuickJS.serializeSnapshot(image.snapshot), 'compress')
  const file = new Uint8Array(MAGIC.length + 4 + json.length + body.length)
  file.set(new TextEncoder().encode(MAGIC), 0)
  new DataView(file.buffer).setUint32(MAGIC.length, json.length, true)
  file.set(json, MAGIC.length + 4)
  file.set(body, MAGIC.length + 4 + json.length)
  return file
}

/**
 * The image in `file`, if it was made from exactly these WASM bytes and this guest runtime;
 * otherwise a string saying why not. The snapshot's memory is shared memory where the host has it,
 * so that every worker thread restores from one copy.
 */
export async function decodeImageFile(wasi: WasiModule, file: Uint8Array, wasmBytes: Uint8Array): Promise<ShippedImage | string> {
  const magic = new TextDecoder().decode(file.subarray(0, MAGIC.length))
  if (file.length < MAGIC.length + 4 || magic !== MAGIC) return 'not an image file'
  const jsonLength = new DataView(file.buffer, file.byteOffset, file.byteLength).getUint32(MAGIC.length, true)
  const header = JSON.parse(new TextDecoder().decode(file.subarray(MAGIC.length + 4, MAGIC.length + 4 + jsonLength))) as Omit<
    ImageHeader,
    'format'
  > & {
    format: unknown
  }
  if (header.format !== FORMAT) return `image format ${String(header.format)}, not ${FORMAT}`
  const [wasmSha256, runtimeSha256] = await Promise.all([sha256(wasmBytes), runtimeFingerprint()])
  if (header.wasmSha256 !== wasmSha256) return 'made for other WebAssembly bytes'
  if (header.runtimeSha256 !== runtimeSha256) return 'made for another guest runtime'
  const serialized = await gzip(file.subarray(MAGIC.length + 4 + jsonLength), 'decompress')
  const snapshot = wasi.QuickJS.deserializeSnapshot(serialized)
  const shared = typeof SharedArrayBuffer === 'function' ? new Uint8Array(new SharedArrayBuffer(snapshot.memory.byteLength)) : undefined
  shared?.set(snapshot.memory)
  return {
    image: {
      snapshot: { ...snapshot, memory: shared ?? snapshot.memory },
      seedAddress: header.seedAddress,
      timeOriginAddress: header.timeOriginAddress,
      timeOriginValue: { address: header.timeOriginValue.address, boxing: BigInt(header.timeOriginValue.boxing) },
    },
    staticBytes: header.staticBytes,
    baseBytes: header.baseBytes,
    quickjsWasi: header.quickjsWasi,
  }
}

/** SHA-256 (hex) of the sources an image evaluates, with their file names. */
export function runtimeFingerprint(): Promise<string> {
  return sha256(new TextEncoder().encode(JSON.stringify(GUEST_RUNTIME_STEPS.map((step) => [step.filename, step.source]))))
}

export async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>))
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/**
 * gzip by node:zlib where the host has it (Node, Bun, Deno: ~3–8 ms for the image, on libuv's
 * thread pool rather than the host's event loop), else through the web streams every host has
 * (~30 ms in Node, which loads its fetch implementation for them).
 */
async function gzip(bytes: Uint8Array, direction: 'compress' | 'decompress'): Promise<Uint8Array> {
  const zlib = await nodeBuiltin<typeof import('node:zlib')>('node:zlib').catch(() => undefined)
  if (zlib !== undefined) {
    return new Promise((resolve, reject) => {
      const done = (error: Error | null, result: Uint8Array) => (error ? reject(error) : resolve(result))
      if (direction === 'compress') zlib.gzip(bytes, { level: 9 }, done)
      else zlib.gunzip(bytes, done)
    })
  }
  const stream = direction === 'compress' ? new CompressionStream('gzip') : new DecompressionStream('gzip')
  const piped = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(stream)
  return new Uint8Array(await new Response(piped).arrayBuffer())
}
