import { workspaceTests } from '../../config/vitest.base.js'

// Every backend, ivm included (it needs --no-node-snapshot).
export default workspaceTests({ test: { globalSetup: ['test/support/build-dist.ts'] } }, { isolatedVm: true })
