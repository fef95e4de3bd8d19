import { packageBuild } from '../../config/tsup.base.js'

export default packageBuild({
  // child.js is the child processes' entry: under the permission model it is the only file a
  // child may read, so it must be one self-contained bundle (no shared chunks). early-start.js
  // is one too: it must load nothing of core (early-child.ts says how the two entries meet).
  entry: {
    index: 'src/index.ts',
    'early-start': 'src/early-start.ts',
    child: 'src/child/entry.ts',
    'engine-child': 'src/engine-child/entry.ts',
  },
  platform: 'node',
  dts: { entry: { index: 'src/index.ts', 'early-start': 'src/early-start.ts' } },
  splitting: false,
})
