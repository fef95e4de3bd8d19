import { workspaceTests } from '../../config/vitest.base.js'

// Each test file starts servers (and their engine children) of its own: forks keep them apart.
export default workspaceTests({ test: { hookTimeout: 60_000, pool: 'forks' } })
