import { packageBuild } from '../../config/tsup.base.js'

export default packageBuild({ entry: { index: 'src/index.ts', backend: 'src/backend/index.ts' } })
