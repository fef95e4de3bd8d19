// Bundles the worker entry into one file with everything it imports (the backend's own code,
// @cordon/core, quickjs-wasi's JavaScript): a new worker then loads one module instead of
// resolving and compiling a dozen, 15–25 ms of its start here. The licenses of the packages
// bundled in go beside it (engine-worker.notices.txt), as their MIT licenses ask; not named
// *license*, which pnpm would take for the package's own and leave the LICENSE file out.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { build } from 'tsup'
import { nodeBuiltinsThrow } from '../../../config/node-builtins-throw.mjs'

await build({
  config: false,
  entry: { 'engine-worker': 'src/worker/entry.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'es2022',
  outDir: 'dist',
  sourcemap: true,
  clean: false,
  dts: false,
  splitting: false,
  silent: true,
  noExternal: [/.*/],
})

// The same for a browser's Web Worker: one module a page loads from a URL, no bare imports left.
await build({
  config: false,
  entry: { 'web-worker': 'src/worker/web-entry.ts' },
  format: ['esm'],
  platform: 'browser',
  target: 'es2022',
  outDir: 'dist-browser',
  sourcemap: true,
  clean: false,
  dts: false,
  splitting: false,
  silent: true,
  noExternal: [/.*/],
  removeNodeProtocol: false,
  esbuildPlugins: [nodeBuiltinsThrow],
})

// The packages in the bundle: every node_modules package its source map names.
const map = JSON.parse(readFileSync('dist/engine-worker.js.map', 'utf8'))
const packageDirs = new Set()
for (const source of map.sources) {
  const path = join('dist', source)
  const at = path.lastIndexOf('node_modules/')
  if (at < 0) continue
  const rest = path.slice(at + 'node_modules/'.length).split('/')
  packageDirs.add(path.slice(0, at + 'node_modules/'.length) + rest.slice(0, rest[0].startsWith('@') ? 2 : 1).join('/'))
}
const notices = [...packageDirs].sort().map((dir) => {
  const { name, version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const file = readdirSync(dir).find((entry) => /^(licen[cs]e|copying)/i.test(entry))
  const text = file === undefined ? `(no license file; package.json says ${license})` : readFileSync(join(dir, file), 'utf8').trim()
  return `${name} ${version} (${license})\n\n${text}\n`
})
writeFileSync(
  join(dirname('dist/engine-worker.js'), 'engine-worker.notices.txt'),
  `engine-worker.js bundles these packages:\n\n${notices.join('\n' + '-'.repeat(72) + '\n\n')}`,
)
