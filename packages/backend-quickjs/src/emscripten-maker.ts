import type { EngineImage } from './engine-image.js'
import { engineLoader, type Engine } from './engine-loader.js'
import { NO_IMAGE, type EngineMaker } from './engine-maker.js'
import { adoptEngineImage, createFreshEngine, engineImage } from './fresh-engine.js'
import type { ResolvedQuickJSOptions } from './options.js'

/** How a worker shares engine images with the rest of its pool (see InlineExtras). */
export interface ImageSharing {
  /** An engine image another worker of the pool took (see adoptEngineImage). */
  sharedImage?: EngineImage
  /** Called once with the engine image this backend took itself, for the pool to share. */
  onImageTaken?: (image: EngineImage) => void
}

/** quickjs-emscripten's builds: each engine a WASM instance in a memory capped by pages, started from the engine image. */
export function emscriptenMaker(settings: ResolvedQuickJSOptions, { sharedImage, onImageTaken }: ImageSharing): EngineMaker {
  const loadFirst = engineLoader(settings)
  let engine: Engine | undefined
  return {
    async load() {
      if (engine !== undefined) return
      const loaded = await loadFirst()
      if (engine !== undefined) return
      engine = loaded
      if (settings.engineImage) shareImage(loaded, settings.maxStackSizeBytes, sharedImage, onImageTaken)
    },
    capFor: (memoryMb) => loadedEngine().capPagesFor(memoryMb),
    create: (capPages) => createFreshEngine(loadedEngine(), capPages, settings.maxStackSizeBytes, settings.engineImage),
    imageSource() {
      if (engine === undefined) return undefined
      return settings.engineImage ? 'an engine image taken in this process after the first engine' : NO_IMAGE
    },
    // quickjs-emscripten's instances are not reset in place: each run gets a new one.
    recycle: () => undefined,
  }

  function loadedEngine(): Engine {
    if (engine === undefined) throw new Error('the QuickJS engine is used before it was loaded')
    return engine
  }
}

/** Starts the engine's image from the shared one, or reports the one it takes. */
function shareImage(
  engine: Engine,
  maxStackSizeBytes: number,
  shared: EngineImage | undefined,
  onTaken: ImageSharing['onImageTaken'],
): void {
  if (shared !== undefined) adoptEngineImage(engine, maxStackSizeBytes, shared)
  if (onTaken === undefined) return
  void engineImage(engine, maxStackSizeBytes).then((image) => {
    if (image !== undefined && image !== shared) onTaken(image)
  })
}
