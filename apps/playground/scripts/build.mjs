// Builds the playground into dist/ with esbuild, as a web developer would bundle cordon: the
// packages' `browser` builds (esbuild's default conditions for platform 'browser'), and the three
// files @cordon/backend-quickjs fetches from beside the bundle copied next to it.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const here = dirname(fileURLToPath(import.meta.url))
const dist = join(here, '..', 'dist')
rmSync(dist, { recursive: true, force: true })
mkdirSync(dist, { recursive: true })

await build({
  entryPoints: [join(here, '..', 'src', 'playground.ts')],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  outdir: dist,
  logLevel: 'warning',
})

const backendDir = join(dirname(createRequire(import.meta.url).resolve('@cordon/backend-quickjs/package.json')), 'dist-browser')
for (const file of ['web-worker.js', 'quickjs-wasi.wasm', 'quickjs-wasi.image']) copyFileSync(join(backendDir, file), join(dist, file))
for (const file of ['index.html', 'playground.css']) copyFileSync(join(here, '..', 'src', file), join(dist, file))
console.log(`playground built in ${dist}`)
