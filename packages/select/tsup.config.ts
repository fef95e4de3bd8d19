import { browserBuild, packageBuild } from '../../config/tsup.base.js'

const entry = ['src/index.ts']

export default [
  packageBuild({ entry }),
  browserBuild({
    entry,
    // A page resolves no package names at run time: builtin-imports.browser.ts names them for its bundler.
    esbuildPlugins: [
      {
        name: 'browser-builtin-imports',
        setup(build) {
          build.onResolve({ filter: /^\.\/builtin-imports\.js$/ }, (args) => ({ path: `${args.resolveDir}/builtin-imports.browser.ts` }))
        },
      },
    ],
  }),
]
