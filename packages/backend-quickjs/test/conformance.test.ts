import { describeBackendConformance } from '@cordon/conformance'
import { createQuickJSBackend } from '../src/index.js'

describeBackendConformance(() => createQuickJSBackend())
