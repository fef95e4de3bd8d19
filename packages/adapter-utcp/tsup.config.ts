import { packageBuild } from '../../config/tsup.base.js'

export default packageBuild({ entry: ['src/index.ts'] })
