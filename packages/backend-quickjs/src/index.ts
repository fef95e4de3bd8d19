export { createQuickJSBackend } from './quickjs-backend.js'
export { QUICKJS_CAPABILITIES } from './capabilities.js'
export type { Loadable, QuickJSBackendOptions, VariantInput, WasmModuleInput } from './options.js'
