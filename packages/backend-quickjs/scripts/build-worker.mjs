// Bundles each worker entry into one file with everything it imports (the backend's own code,
// @cordon/core, quickjs-wasi's JavaScript): dist/engine-worker.js for Node's worker threads (a
// new worker then loads one module instead of resolving and compiling a dozen, 15–25 ms of its
// start here) and dist-browser/web-worker.js for a page's Web Workers (a page resolves no package
// names). The licenses of the packages bundled in go beside each (*.notices.txt), as their MIT
// licenses ask; not named *license*, which pnpm would take for the package's own and leave the
// LICENSE file out.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'tsup'
import { browserPlugins } from '../../../config/browser-plugins.mjs'

/** Bundles `entry` as `outDir/name.js`, then writes `outDir/name.notices.txt`. */
async function bundle(name, entry, outDir, platform) {
  await build({
    config: false,
    entry: { [name]: entry },
    format: ['esm'],
    platform,
    target: 'es2022',
    outDir,
    sourcemap: true,
    clean: false,
    dts: false,
    splitting: false,
    silent: true,
    noExternal: [/.*/],
    // For browsers as every browser build (config/browser-plugins.mjs).
    ...(platform === 'browser' ? { removeNodeProtocol: false, esbuildPlugins: browserPlugins } : {}),
  })
  writeNotices(name, outDir)
}

/** The packages in a bundle: every node_modules package its source map names, with its license. */
function writeNotices(name, outDir) {
  const map = JSON.parse(readFileSync(join(outDir, `${name}.js.map`), 'utf8'))
  const packageDirs = new Set()
  for (const source of map.sources) {
    const path = join(outDir, source)
    const at = path.lastIndexOf('node_modules/')
    if (at < 0) continue
    const rest = path.slice(at + 'node_modules/'.length).split('/')
    packageDirs.add(path.slice(0, at + 'node_modules/'.length) + rest.slice(0, rest[0].startsWith('@') ? 2 : 1).join('/'))
  }
  const notices = [...packageDirs].sort().map((dir) => {
    const { name: packageName, version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    const file = readdirSync(dir).find((entry) => /^(licen[cs]e|copying)/i.test(entry))
    const text = file === undefined ? `(no license file; package.json says ${license})` : readFileSync(join(dir, file), 'utf8').trim()
    return `${packageName} ${version} (${license})\n\n${text}\n`
  })
  writeFileSync(
    join(outDir, `${name}.notices.txt`),
    `${name}.js bundles these packages:\n\n${notices.join('\n' + '-'.repeat(72) + '\n\n')}`,
  )
}

await bundle('engine-worker', 'src/worker/entry.ts', 'dist', 'node')
await bundle('web-worker', 'src/worker/web-entry.ts', 'dist-browser', 'browser')
