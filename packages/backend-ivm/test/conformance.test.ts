import { describeBackendConformance } from '@cordon/conformance'
import { createIvmBackend } from '../src/index.js'

describeBackendConformance(() => createIvmBackend())
