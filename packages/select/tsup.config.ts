import { browserBuild, packageBuild } from '../../config/tsup.base.js'

const entry = ['src/index.ts']

// Modules with a `.browser.ts` variant (the guarded fetch, the built-in backends' imports) are
// replaced by it in the browser build.
export default [packageBuild({ entry }), browserBuild({ entry })]
