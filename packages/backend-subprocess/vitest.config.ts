import { workspaceTests } from '../../config/vitest.base.js'

export default workspaceTests({ test: { globalSetup: ['test/build-child.ts'] } })
