import { workspaceTests } from '../config/vitest.base.js'

export default workspaceTests({ test: { include: ['test/**/*.test.mjs'], testTimeout: 60_000 } })
