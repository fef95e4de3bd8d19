import { workspaceTests } from '../../config/vitest.base.js'

export default workspaceTests({ test: { testTimeout: 60_000 } }, { isolatedVm: true })
