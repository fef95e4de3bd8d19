export { createQuickJSBackend } from './quickjs-backend.js'
export { INLINE_CAPABILITIES, QUICKJS_CAPABILITIES, WEB_WORKER_CAPABILITIES } from './capabilities.js'
export type { Loadable, QuickJSBackendOptions, QuickJSThread, VariantInput, WasmModuleInput } from './options.js'
export type { QuickJSBackend, QuickJSDiagnostics } from './diagnostics.js'
