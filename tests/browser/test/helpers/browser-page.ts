/**
 * A page with cordon in real headless Chromium (Debian's `chromium`, driven by playwright-core; no
 * browser download): the page's script is bundled by esbuild from the packages' browser builds,
 * served with web-worker.js, quickjs-wasi.wasm and the engine image beside it, cross-origin
 * isolated or not (config/static-server.mjs).
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { chromium, type Browser } from 'playwright-core'
import { CHROMIUM_ARGS, chromiumExecutable } from '../../../../config/chromium.mjs'
import { serveStatic, type StaticServer } from '../../../../config/static-server.mjs'

/** The backend's browser build, as installed (workspace link here, node_modules for a user). */
const DIST_BROWSER = join(dirname(createRequire(import.meta.url).resolve('@cordon/backend-quickjs/package.json')), 'dist-browser')
/** What the browser build fetches from beside the page's bundle. */
const BESIDE_THE_BUNDLE = ['web-worker.js', 'quickjs-wasi.wasm', 'quickjs-wasi.image']

/** Bundles the test page into a fresh directory; returns it. */
export async function bundleTestPage(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-browser-'))
  await build({
    entryPoints: { page: fileURLToPath(new URL('../page/page-entry.ts', import.meta.url)) },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir: dir,
    logLevel: 'error',
  })
  for (const file of BESIDE_THE_BUNDLE) copyFileSync(join(DIST_BROWSER, file), join(dir, file))
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><meta charset="utf-8"><title>cordon</title><script type="module" src="./page.js"></script>\n',
  )
  return dir
}

export type { StaticServer as PageServer } from '../../../../config/static-server.mjs'

/** Serves `dir`; `isolated` adds the headers that make a page cross-origin isolated. */
export function servePage(dir: string, { isolated }: { isolated: boolean }): Promise<StaticServer> {
  return serveStatic({ dir, isolated })
}

/** Debian's Chromium, headless; fails saying how to install it when it is missing. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: CHROMIUM_ARGS })
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}
