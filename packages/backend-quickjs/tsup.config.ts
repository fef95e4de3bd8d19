import { browserBuild, packageBuild } from '../../config/tsup.base.js'

// image-maker.js makes dist/quickjs-wasi.image (scripts/write-wasi-image.mjs); it is no export.
// engine-worker.js (each worker thread's) and dist-browser/web-worker.js (each Web Worker's) are
// bundled on their own (scripts/build-worker.mjs).
export default [
  packageBuild({
    entry: { index: 'src/index.ts', 'image-maker': 'src/wasi/make-image-file.ts' },
    dts: { entry: { index: 'src/index.ts' } },
  }),
  browserBuild({ entry: { index: 'src/index.ts' } }),
]
