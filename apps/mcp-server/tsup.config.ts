import { defineConfig } from 'tsup'

export default defineConfig({
  entry: ['src/server.ts'],
  format: ['esm'],
  clean: true,
  target: 'es2022',
  sourcemap: true,
  // The bin is this file: an MCP client starts `cordon-mcp` (or `node dist/server.js`) directly.
  banner: { js: '#!/usr/bin/env node' },
})
