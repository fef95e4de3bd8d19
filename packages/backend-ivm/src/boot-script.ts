import { BOOT_FILENAME, BOOT_SOURCE } from './boot-source.js'
import type { IvmCachedData, IvmIsolate, IvmModule, IvmScript } from './ivm-types.js'

/**
 * V8's code cache for the boot script, one per isolated-vm module (each major carries its own
 * V8). Compiling the runtime from source takes about 1.1 ms of every fresh isolate's setup;
 * from the cache about 0.15 ms. The cache is made from our own source before any guest code
 * runs in that isolate, so nothing a guest does can reach it.
 */
const bootCaches = new WeakMap<IvmModule, IvmCachedData>()

/** The boot script compiled in `isolate`: from the cache when V8 takes it, else from source (making the cache). */
export async function compileBootScript(ivm: IvmModule, isolate: IvmIsolate): Promise<IvmScript> {
  const cachedData = bootCaches.get(ivm)
  if (cachedData !== undefined) {
    const script = await isolate.compileScript(BOOT_SOURCE, { filename: BOOT_FILENAME, cachedData })
    if (script.cachedDataRejected !== true) return script
    // V8 refused it (its flags changed): compiled from source all the same; make a new one below.
    script.release()
  }
  const script = await isolate.compileScript(BOOT_SOURCE, { filename: BOOT_FILENAME, produceCachedData: true })
  if (script.cachedData !== undefined) bootCaches.set(ivm, script.cachedData)
  return script
}
