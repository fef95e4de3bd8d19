import { workspaceTests } from '../../config/vitest.base.js'

export default workspaceTests()
