import { describeBackendConformance, SHARED_GROUPS } from '@cordon/conformance'
import { createQuickJSBackend } from '../src/index.js'

// quickjs-ng 0.18.0 through quickjs-wasi, in worker threads: the same suite as the default engine.
describeBackendConformance(() => createQuickJSBackend({ engine: 'quickjs-wasi' }), { groups: SHARED_GROUPS })
