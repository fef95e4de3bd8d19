import type { SandboxBackend } from '@cordon/core/backend'
import type { QuickJSEngineName } from './options.js'

/** What `diagnose()` tells about a QuickJS backend (`cordon doctor` and @cordon/select show it). */
export interface QuickJSDiagnostics {
  /** The QuickJS in use: quickjs-ng through quickjs-wasi, or a quickjs-emscripten build. */
  engine: QuickJSEngineName
  /**
   * Where each fresh engine comes from: the image shipped with the package, an image taken in this
   * process (and why not the shipped one), or the guest runtime evaluated every time; before the
   * first run, 'not loaded yet'.
   */
  engineImage: string
}

export interface QuickJSBackend extends SandboxBackend {
  diagnose(): Promise<QuickJSDiagnostics>
}

export const NOT_LOADED = 'not loaded yet'
