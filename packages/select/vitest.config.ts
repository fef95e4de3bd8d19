import { workspaceTests } from '../../config/vitest.base.js'

// The real ivm probe needs --no-node-snapshot.
export default workspaceTests({}, { isolatedVm: true })
