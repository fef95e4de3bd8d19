import { resolveOptions } from '../options.js'
import { encodeImageFile, runtimeFingerprint, sha256 } from './image-file.js'
import type { WasiContext } from './wasi-context.js'
import { takeWasiImage } from './wasi-image.js'
import { loadWasiBuild, measureWasi } from './wasi-maker.js'

/**
 * The build's engine image (dist/quickjs-wasi.image, written by scripts/write-wasi-image.mjs):
 * taken as a process takes its own, from the default quickjs.wasm, with the default stack size
 * (a restored engine gets its own limits).
 */
export async function makeImageFile(): Promise<Uint8Array> {
  const settings = resolveOptions({ engine: 'quickjs-wasi' })
  const build = await loadWasiBuild(settings)
  if (build.bytes === undefined) throw new Error('quickjs.wasm was not read')
  const { engine, ...sizes } = await measureWasi(build, settings.maxStackSizeBytes)
  const quickjsWasi = (engine.context as WasiContext).vm.versions['quickjs-wasi'] ?? 'unknown'
  engine.runtime.dispose()
  const image = await takeWasiImage(build, settings.maxStackSizeBytes)
  if (image === undefined) throw new Error('the engine image failed its checks')
  return encodeImageFile(build.wasi, image, {
    quickjsWasi,
    wasmSha256: await sha256(build.bytes),
    runtimeSha256: await runtimeFingerprint(),
    ...sizes,
  })
}
