import { browserBuild, packageBuild } from '../../config/tsup.base.js'

// errors: what a light entry (e.g. @cordon/select's) needs to throw core's errors without loading core.
const entry = { index: 'src/index.ts', backend: 'src/backend/index.ts', errors: 'src/errors.ts' }

// Modules with a `.browser.ts` variant (the guarded fetch, the built-in backends' imports) are
// replaced by it in the browser build.
// The parse worker (src/parse-worker.ts, see src/parse-thread/) is a file of its own, beside the chunks; not in the browser
// build, which parses on the page's thread.
export default [packageBuild({ entry: { ...entry, 'parse-worker': 'src/parse-worker.ts' }, dts: { entry } }), browserBuild({ entry })]
