import { packageBuild } from '../../config/tsup.base.js'

export default packageBuild({
  entry: ['src/server.ts'],
  dts: false,
  // The bin is this file: an MCP client starts `cordon-mcp` (or `node dist/server.js`) directly.
  banner: { js: '#!/usr/bin/env node' },
})
