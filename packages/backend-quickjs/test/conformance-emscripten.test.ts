import { describeBackendConformance, SHARED_GROUPS } from '@cordon/conformance'
import { createQuickJSBackend } from '../src/index.js'

// quickjs-emscripten's engine (bellard's QuickJS 2025-09-13), still selectable, passes the same
// suite in worker threads. Its inline mode runs the same run code as quickjs-wasi's inline mode
// (conformance-inline.test.ts); only the engine under it differs.
describeBackendConformance(() => createQuickJSBackend({ engine: 'quickjs-emscripten' }), { groups: SHARED_GROUPS })
