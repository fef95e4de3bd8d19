import { browserBuild, packageBuild } from '../../config/tsup.base.js'

const entry = { index: 'src/index.ts', backend: 'src/backend/index.ts' }

export default [
  packageBuild({ entry }),
  browserBuild({
    entry,
    // The guarded fetch needs Node's HTTP client and DNS: browsers get run-fetcher.browser.ts.
    esbuildPlugins: [
      {
        name: 'browser-run-fetcher',
        setup(build) {
          build.onResolve({ filter: /^\.\/run-fetcher\.js$/ }, (args) => ({ path: `${args.resolveDir}/run-fetcher.browser.ts` }))
        },
      },
    ],
  }),
]
