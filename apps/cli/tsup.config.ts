import { packageBuild } from '../../config/tsup.base.js'

export default packageBuild({
  entry: ['src/cli.ts'],
  dts: false,
  // The bin is this file: `cordon …` runs it with the node on PATH.
  banner: { js: '#!/usr/bin/env node' },
})
