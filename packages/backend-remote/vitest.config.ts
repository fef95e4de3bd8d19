import { workspaceTests } from '../../config/vitest.base.js'

// Each file starts a fleet of its own (servers, HAProxy): forks keep their processes apart.
export default workspaceTests({ test: { hookTimeout: 60_000, pool: 'forks' } })
