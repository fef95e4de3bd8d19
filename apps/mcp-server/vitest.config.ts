import { workspaceTests } from '../../config/vitest.base.js'

// The tests start dist/server.js as an MCP client would: build it first when it is stale.
export default workspaceTests({ test: { globalSetup: ['test/build-server.ts'], hookTimeout: 60_000, pool: 'forks' } })
