/**
 * Takes the README's screenshot of Chrome DevTools paused in a guest program: a cordon run with
 * the inspector on (the `--inspect-brk` path of the CLI, through the public API), DevTools' own
 * frontend served by a headless Chromium from Debian's packages (`apt-get install chromium`),
 * driven by playwright-core. Not a test: run it by hand after a visible change of the debugger.
 *
 *   node --no-node-snapshot apps/cli/scripts/screenshot-devtools.mjs [chromium path]
 */
import { fileURLToPath } from 'node:url'
import { createSandbox } from '@cordon/core'
import { createIvmBackend } from '@cordon/backend-ivm'
import { chromium } from 'playwright-core'
import { chromiumExecutable } from '../../../config/chromium.mjs'

const executablePath = process.argv[2] ?? chromiumExecutable()
const output = fileURLToPath(new URL('../docs/devtools-paused.png', import.meta.url))
const FRONTEND_PORT = 9339

const program = `interface Issue { title: string; labels: string[] }

async function triage(issues: Issue[]): Promise<string[]> {
  const urgent = issues.filter((issue) => issue.labels.includes('urgent'))
  debugger
  return urgent.map((issue) => issue.title.toUpperCase())
}

const issues: Issue[] = await github.listIssues({ repo: 'cordon' })
console.log(\`\${issues.length} issues\`)
await triage(issues)
`

const tools = {
  'github.listIssues': {
    execute: () => [
      { title: 'Inspector for engine children', labels: ['urgent'] },
      { title: 'Browser playground', labels: [] },
      { title: 'Launch-plan cache', labels: ['urgent', 'perf'] },
    ],
  },
}

const sandbox = createSandbox(createIvmBackend({ inspector: true }))
let listening
const endpoint = new Promise((resolve) => (listening = resolve))
const run = sandbox.run(program, {
  tools,
  inspector: { waitForDebugger: true, suspendDeadline: true, onListening: listening },
})
const { webSocketUrl } = await endpoint
const browser = await chromium.launch({ executablePath, args: [`--remote-debugging-port=${FRONTEND_PORT}`] })
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
  // Chromium serves DevTools' frontend on its own debugging port; it connects to the run's socket.
  const target = webSocketUrl.slice('ws://'.length)
  await page.goto(`http://127.0.0.1:${FRONTEND_PORT}/devtools/js_app.html?experiments=true&v8only=true&ws=${target}`)
  // Paused first before the first statement (waitForDebugger): go on to the `debugger` statement.
  await page.waitForSelector('text=Paused', { timeout: 30_000 })
  await page.keyboard.press('F8')
  await page.waitForSelector('text=urgent', { timeout: 30_000 })
  await page.waitForTimeout(1_500)
  await page.screenshot({ path: output })
  console.log(`wrote ${output}`)
  await page.keyboard.press('F8')
} finally {
  await browser.close()
  const result = await run
  console.log('the run ended:', result.ok ? JSON.stringify(result.value) : result.error.code)
  await sandbox.dispose()
}
