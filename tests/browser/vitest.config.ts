import { workspaceTests } from '../../config/vitest.base.js'

// Bundling the page and starting Chromium take a while on a loaded machine.
export default workspaceTests({ test: { hookTimeout: 120_000 } })
