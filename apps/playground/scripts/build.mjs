// Builds the playground into dist/ with esbuild, as a web developer would bundle cordon: the
// packages' `browser` builds (esbuild's default conditions for platform 'browser'), and the three
// files @cordon/backend-quickjs fetches from beside the bundle copied next to it.
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const here = dirname(fileURLToPath(import.meta.url))
const dist = join(here, '..', 'dist')
rmSync(dist, { recursive: true, force: true })
mkdirSync(dist, { recursive: true })

await build({
  // measure-entry.ts: what scripts/measure.mjs imports in the page.
  entryPoints: ['playground.ts', 'measure-entry.ts'].map((file) => join(here, '..', 'src', file)),
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
// An empty page for scripts/measure.mjs: nothing of the playground loads before it measures.
writeFileSync(join(dist, 'measure.html'), '<!doctype html><meta charset="utf-8"><title>measure</title>\n')
console.log(`playground built in ${dist}`)
