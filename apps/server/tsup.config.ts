import { packageBuild } from '../../config/tsup.base.js'

export default [
  // The library: startServer for hosts that embed a server (and for the tests).
  packageBuild({ entry: ['src/index.ts'] }),
  // The bin: `cordon-server …` runs it with the node on PATH.
  packageBuild({ entry: ['src/main.ts'], dts: false, clean: false, banner: { js: '#!/usr/bin/env node' } }),
]
