// Measures cordon in a page, in Debian's headless Chromium: what the playground's bundle weighs
// (gzipped), the first run in a fresh page (the .wasm fetched and compiled, the first Web Worker
// started, the engine image checked), a warm run, and a tool call. `node scripts/measure.mjs`
// after `node scripts/build.mjs`; prints one JSON line per page kind.
import { readFileSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { chromium } from 'playwright-core'
import { CHROMIUM_ARGS, chromiumExecutable } from '../../../config/chromium.mjs'
import { servePlayground } from './serve.mjs'

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')
const gzip = (file) => gzipSync(readFileSync(join(dist, file))).length
const kib = (bytes) => Math.round(bytes / 102.4) / 10
const js = readdirSync(dist).filter((file) => file.endsWith('.js') && file !== 'web-worker.js')
console.log(
  JSON.stringify({
    'page JavaScript, all chunks (KiB gzip)': kib(js.reduce((sum, file) => sum + gzip(file), 0)),
    'web-worker.js (KiB gzip)': kib(gzip('web-worker.js')),
    'quickjs-wasi.wasm (KiB gzip)': kib(gzip('quickjs-wasi.wasm')),
    'quickjs-wasi.image (KiB)': kib(readFileSync(join(dist, 'quickjs-wasi.image')).length),
  }),
)

const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: CHROMIUM_ARGS })
for (const isolated of [true, false]) {
  const server = await servePlayground({ isolated })
  const page = await browser.newPage()
  // An empty page of the same origin: the first run pays for everything (nothing cached).
  await page.goto(`${server.url}measure.html`)
  const measured = await page.evaluate(async () => {
    const { createSandbox } = await import('./measure-entry.js')
    const sandbox = createSandbox()
    let started = performance.now()
    await sandbox.run('1 + 2')
    const firstMs = performance.now() - started
    const warm = []
    for (let i = 0; i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 15))
      started = performance.now()
      await sandbox.run('1 + 2')
      warm.push(performance.now() - started)
    }
    const tools = { 'echo.value': { execute: (value) => value } }
    await sandbox.run('await echo.value(1)', { tools })
    started = performance.now()
    await sandbox.run('for (let i = 0; i < 100; i++) await echo.value(i)', { tools })
    const toolMs = (performance.now() - started) / 100
    await sandbox.dispose()
    warm.sort((a, b) => a - b)
    return { firstMs, warmMedianMs: warm[20], toolCallMs: toolMs }
  })
  const round = (ms) => Math.round(ms * 100) / 100
  console.log(
    JSON.stringify({
      page: isolated ? 'cross-origin isolated' : 'not isolated',
      ...Object.fromEntries(Object.entries(measured).map(([k, v]) => [k, round(v)])),
    }),
  )
  await page.close()
  await server.close()
}
await browser.close()
