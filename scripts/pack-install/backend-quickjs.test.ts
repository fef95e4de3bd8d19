import { fileURLToPath } from 'node:url'
import { describeBackendAlone } from './backend-alone.js'

describeBackendAlone({
  pkg: '@cordon/backend-quickjs',
  prints: /^1 \{\n\s+backend: 'quickjs',/,
  // The default runs engines in worker threads; the same example on the host's thread.
  variants: [
    {
      name: "with thread: 'inline'",
      rewrite: (example) => example.replace('createQuickJSBackend()', "createQuickJSBackend({ thread: 'inline' })"),
    },
  ],
  // @cordon/core's README and the root README show their examples on QuickJS too.
  alsoRuns: [
    { name: "@cordon/core's README", readme: 'node_modules/@cordon/core/README.md', prints: /^2\n$/ },
    {
      name: 'the root README',
      readme: fileURLToPath(new URL('../../README.md', import.meta.url)),
      prints: /^30 \[ \{ level: 'log', message: '3' \} \]\n$/,
    },
  ],
})
