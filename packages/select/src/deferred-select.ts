/**
 * The package's functions as its entry exports them. Each loads the selection code, and with it
 * core, on its first call: importing @cordon/select loads neither, so `createSandbox()` can start
 * the engine child its choice will use (early-engine.ts) before the rest of the process loads.
 */
import type { Sandbox } from '@cordon/core'
import { startEngineEarly } from './early-engine.js'
import type { Diagnosis } from './report.js'
import type { Selection } from './select-backend.js'
import type { CreateSandboxOptions, DiagnoseOptions, SelectOptions } from './select-options.js'

type SelectModule = typeof import('./select-backend.js')
let loading: Promise<SelectModule> | undefined

/** select-backend.ts, loaded once; a load that failed is tried again by the next call. */
function selectModule(): Promise<SelectModule> {
  return (loading ??= import('./select-backend.js').catch((error: unknown) => {
    loading = undefined
    throw error
  }))
}

/**
 * Probes the candidates (strongest first, or as `backend`/`prefer`/CORDON_BACKEND say)
 * and returns a new instance of the first that works and meets `require`. Throws
 * INVALID_OPTIONS for bad options and BACKEND_UNAVAILABLE when nothing fits.
 */
export async function selectBackend(options?: SelectOptions): Promise<Selection> {
  return (await selectModule()).selectBackend(options)
}

/** The one-line entry point: a @cordon/core Sandbox on the strongest backend that works here. */
export async function createSandbox(options?: CreateSandboxOptions): Promise<Sandbox> {
  await startEngineEarly(options)
  return (await selectModule()).createSandbox(options)
}

/**
 * Probes every candidate that is not disabled and explains each: available or not, why,
 * the fix, probe time and capabilities. Never throws for an unusable backend.
 */
export async function diagnose(options?: DiagnoseOptions): Promise<Diagnosis> {
  return (await selectModule()).diagnose(options)
}
