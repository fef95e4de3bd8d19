import { packageBuild } from '../../config/tsup.base.js'

// register, workers-hooks and cloudflare-workers are files of their own: the hooks and the
// stand-in are found by URL relative to register.js.
export default packageBuild({ entry: ['src/index.ts', 'src/register.ts', 'src/workers-hooks.ts', 'src/cloudflare-workers.ts'] })
