import { packageBuild } from '../../config/tsup.base.js'

// engine-worker.js is what each worker thread runs: the inline backend behind the channel protocol.
export default packageBuild({
  entry: { index: 'src/index.ts', 'engine-worker': 'src/worker/entry.ts' },
  dts: { entry: { index: 'src/index.ts' } },
})
