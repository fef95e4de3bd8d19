import { workspaceTests } from '../../config/vitest.base.js'

// The tests spawn dist/cli.js, as a user's shell would: build it first when it is stale.
export default workspaceTests({ test: { globalSetup: ['test/build-cli.ts'], hookTimeout: 60_000 } }, { isolatedVm: true })
