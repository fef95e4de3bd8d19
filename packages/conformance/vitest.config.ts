import { fileURLToPath } from 'node:url'
import { workspaceTests } from '../../config/vitest.base.js'

export default workspaceTests({
  resolve: {
    // The self-tests run against core's source, so they need no build of @cordon/core.
    alias: [
      { find: /^@cordon\/core\/backend$/, replacement: fileURLToPath(new URL('../core/src/backend/index.ts', import.meta.url)) },
      { find: /^@cordon\/core$/, replacement: fileURLToPath(new URL('../core/src/index.ts', import.meta.url)) },
    ],
  },
})
