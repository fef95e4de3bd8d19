import { describeError } from '../engine-failure.js'
import { nodeBuiltin } from '../node-builtin.js'
import { readBytes } from '../wasm-source.js'
import type { WasiModule } from './wasi-context.js'
import { decodeImageFile, type ShippedImage } from './image-file.js'

/** The engine image the build writes beside the bundle (scripts/write-wasi-image.mjs). */
export const IMAGE_FILE_NAME = 'quickjs-wasi.image'

/**
 * The shipped image, checked against these WASM bytes and this guest runtime, or why there is
 * none to use (then engines start from an image taken in this process, as before the build
 * shipped one). Next to the bundled module; in ../../dist when running from the sources (tests).
 */
export async function readShippedImage(wasi: WasiModule, wasmBytes: Uint8Array): Promise<ShippedImage | string> {
  try {
    const file = await readBytes(await locate())
    return await decodeImageFile(wasi, file, wasmBytes)
  } catch (error) {
    return `the shipped engine image could not be read: ${describeError(error)}`
  }
}

async function locate(): Promise<URL> {
  const beside = new URL(`./${IMAGE_FILE_NAME}`, import.meta.url)
  if (beside.protocol !== 'file:') return beside
  const { existsSync } = await nodeBuiltin<typeof import('node:fs')>('node:fs')
  const { fileURLToPath } = await nodeBuiltin<typeof import('node:url')>('node:url')
  const fromSources = new URL(`../../dist/${IMAGE_FILE_NAME}`, import.meta.url)
  return [beside, fromSources].find((candidate) => existsSync(fileURLToPath(candidate))) ?? beside
}
