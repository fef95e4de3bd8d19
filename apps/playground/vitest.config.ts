import { workspaceTests } from '../../config/vitest.base.js'

// The test builds the page (scripts/build.mjs) and serves it as `npm start` does.
export default workspaceTests({ test: { hookTimeout: 120_000 } })
