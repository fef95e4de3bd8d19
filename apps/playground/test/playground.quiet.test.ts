/**
 * The playground in Debian's headless Chromium (playwright-core, no browser download): built with
 * esbuild as `npm start` builds it, served cross-origin isolated as `npm start` serves it. A
 * person's program with tools, streamed logs and a typed error; `while (true) {}` ends TIMEOUT
 * while the page's own timer keeps ticking; Stop aborts. Saves test-results/playground.png.
 * Quiet lane: it measures the page's responsiveness.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { chromium, type Browser, type Page } from 'playwright-core'
import { CHROMIUM_ARGS, chromiumExecutable } from '../../../config/chromium.mjs'
import type { StaticServer } from '../../../config/static-server.mjs'
import { servePlayground } from '../scripts/serve.mjs'

let browser: Browser
let page: Page
let server: StaticServer

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' })
  server = await servePlayground({ isolated: true })
  browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: CHROMIUM_ARGS })
  page = await browser.newPage({ viewport: { width: 1200, height: 760 } })
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  await page.goto(server.url)
  await page.waitForSelector('#program')
  expect(errors).toEqual([])
})

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

async function runProgram(code: string, timeoutMs: number): Promise<{ status: string; result: string }> {
  await page.fill('#program', code)
  await page.fill('#timeout', String(timeoutMs))
  await page.click('#run')
  await page.waitForFunction(() => !(document.getElementById('run') as HTMLButtonElement).disabled, undefined, {
    timeout: timeoutMs + 20_000,
  })
  return { status: await page.textContent('#status').then(String), result: await page.textContent('#result').then(String) }
}

it('runs the example program: tools answer, logs stream in, the value shows', async () => {
  await page.click('#run')
  await page.waitForSelector('#result.ok', { timeout: 30_000 })
  expect(await page.textContent('#result')).toContain('Ada (clear), Grace (overcast), Katherine (scattered clouds)')
  const events = await page.locator('#events li').allTextContents()
  expect(events.some((line) => line.includes('Ada: 19 °C in Lisbon'))).toBe(true)
  expect(events.some((line) => line.includes('weather.today answered'))).toBe(true)
  expect(await page.textContent('#declarations')).toContain('function today(input: { city: string })')
  // @cordon/select chose QuickJS, said why the subprocess backend cannot run here, and probed no further.
  const backends = await page.locator('#backends li').allTextContents()
  expect(backends.find((line) => line.startsWith('quickjs:'))).toMatch(/^quickjs: chosen/)
  expect(backends.find((line) => line.startsWith('subprocess:'))).toMatch(/cannot run in a browser/)
  expect(backends.find((line) => line.startsWith('ivm:'))).toMatch(/not probed: quickjs was chosen first/)
  mkdirSync('test-results', { recursive: true })
  await page.screenshot({ path: 'test-results/playground.png' })
})

it('a TypeScript syntax error is a typed SYNTAX_ERROR with its line', async () => {
  const { status, result } = await runProgram('const a: number = 1\nconst b: = 2', 2_000)
  expect(status).toMatch(/^SYNTAX_ERROR/)
  expect(result).toMatch(/line 2/)
})

it('while (true) {} ends TIMEOUT at its deadline while the page keeps ticking', async () => {
  const timeoutMs = 1_500
  const gaps = page.evaluate(
    (ms) =>
      new Promise<number>((resolve) => {
        let last = performance.now()
        let longest = 0
        const timer = setInterval(() => {
          const now = performance.now()
          longest = Math.max(longest, now - last)
          last = now
        }, 10)
        setTimeout(() => {
          clearInterval(timer)
          resolve(longest)
        }, ms)
      }),
    timeoutMs,
  )
  const { status, result } = await runProgram('while (true) {}', timeoutMs)
  expect(status).toMatch(/^TIMEOUT/)
  expect(result).toMatch(/^TIMEOUT/)
  // Had the guest run on the page's thread, the page's timer would have stopped for the deadline.
  expect(await gaps).toBeLessThan(timeoutMs / 2)
})

it('Stop aborts a spinning program', async () => {
  await page.fill('#program', 'for (;;) {}')
  await page.fill('#timeout', '60000')
  await page.click('#run')
  await page.waitForTimeout(300)
  await page.click('#stop')
  await page.waitForFunction(() => !(document.getElementById('run') as HTMLButtonElement).disabled, undefined, { timeout: 20_000 })
  expect(await page.textContent('#status')).toMatch(/^ABORTED/)
})
