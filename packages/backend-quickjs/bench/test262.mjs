// test262 pass rate of each raw engine in raw-engines.mjs, on the same sample of tests.
// test262 is not on the npm registry: give a checkout (or an extract of its harness/ and test/).
//   node bench/test262.mjs --dir /path/to/test262 [--every 8] [--area built-ins,language]
// Every `every`-th test file (sorted by path) of the areas, excluding Temporal (implemented by
// none of the engines) and module tests; each test runs in a fresh engine with a 5 s deadline,
// strict mode for `onlyStrict`, sloppy otherwise; tests that need the host's `$262` beyond
// `evalScript` and `detachArrayBuffer`/`gc` (realms, agents) count as not run, for every engine alike.
import { readFile, readdir } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { ENGINES, open } from './raw-engines.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`)
  return index >= 0 ? args[index + 1] : fallback
}
const root = option('dir', undefined)
if (root === undefined) {
  console.error('usage: node bench/test262.mjs --dir <test262 checkout> [--every 8] [--area built-ins,language]')
  process.exit(2)
}
const every = Number(option('every', '8'))
const areas = option('area', 'built-ins,language').split(',')
const DEADLINE_MS = 5000

async function filesUnder(dir) {
  const found = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...(await filesUnder(path)))
    else if (entry.name.endsWith('.js') && !entry.name.includes('_FIXTURE')) found.push(path)
  }
  return found
}

function frontMatter(source) {
  const yaml = /\/\*---([\s\S]*?)---\*\//.exec(source)?.[1] ?? ''
  const list = (key) => {
    const inline = new RegExp(`^${key}:\\s*\\[(.*)\\]`, 'm').exec(yaml)
    if (inline)
      return inline[1]
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    const block = new RegExp(`^${key}:\\s*\\n((?:\\s+-.*\\n?)+)`, 'm').exec(yaml)
    return block
      ? block[1]
          .split('\n')
          .map((line) => line.replace(/^\s*-\s*/, '').trim())
          .filter(Boolean)
      : []
  }
  const negative = /negative:\s*\n\s+phase:\s*(\w+)\s*\n\s+type:\s*(\w+)/.exec(yaml)
  return { includes: list('includes'), flags: list('flags'), negative: negative ? { phase: negative[1], type: negative[2] } : undefined }
}

const harnessCache = new Map()
async function harness(name) {
  if (!harnessCache.has(name)) harnessCache.set(name, await readFile(join(root, 'harness', name), 'utf8'))
  return harnessCache.get(name)
}

// The parts of test262's host object a single realm can give.
const HOST_262 = `
var $262 = {
  global: globalThis,
  evalScript(source) { return (0, eval)(source) },
  detachArrayBuffer(buffer) { if (typeof buffer.transfer !== 'function') throw new Test262Error('no transfer'); buffer.transfer() },
  gc() {},
  agent: undefined,
  createRealm() { throw new Test262Error('createRealm is not available') },
  IsHTMLDDA: undefined,
};
`

const NOT_RUN = /\$262\.(createRealm|agent|IsHTMLDDA)|\$262\.AbstractModuleSource/

async function runTest(engineName, path) {
  const source = await readFile(path, 'utf8')
  const meta = frontMatter(source)
  if (meta.flags.includes('module') || NOT_RUN.test(source)) return 'not run'
  const async = meta.flags.includes('async')
  const parts = []
  if (!meta.flags.includes('raw')) {
    for (const name of ['assert.js', 'sta.js', ...(async ? ['doneprintHandle.js'] : []), ...meta.includes]) parts.push(await harness(name))
    parts.push(HOST_262)
  }
  const prefix = meta.flags.includes('onlyStrict') ? '"use strict";\n' : ''
  const started = Date.now()
  const engine = await open(engineName, { memoryBytes: 256 * 1024 * 1024, interrupt: () => Date.now() - started > DEADLINE_MS })
  try {
    const printed = []
    engine.define('print', (text) => printed.push(String(text)))
    // The harness as one script, the test as another (as test262 runners do), so a parse
    // error in the test is the test's, not the harness's.
    if (parts.length > 0) {
      const loaded = engine.evaluate(prefix + parts.join('\n'), { filename: 'harness.js' })
      if (!('value' in loaded)) return 'fail'
    }
    let outcome = engine.evaluate(prefix + source, { filename: relative(root, path) })
    if ('value' in outcome && async) outcome = engine.drain()
    if ('crash' in outcome) {
      if (process.env.T262_VERBOSE) console.log(engineName, relative(root, path), outcome.crash)
      return 'crash'
    }
    if (meta.negative !== undefined) return 'error' in outcome && outcome.error.name === meta.negative.type ? 'pass' : 'fail'
    if ('error' in outcome) return 'fail'
    if (async) return printed.includes('Test262:AsyncTestComplete') ? 'pass' : 'fail'
    return 'pass'
  } finally {
    engine.dispose()
  }
}

const all = []
for (const area of areas) all.push(...(await filesUnder(join(root, 'test', area))))
const sample = all
  .filter((path) => !path.includes('/Temporal/'))
  .sort()
  .filter((_, index) => index % every === 0)
console.log(`test262: ${sample.length} of ${all.length} files (every ${every}th of ${areas.join(', ')}, Temporal excluded)`)

for (const name of Object.keys(ENGINES)) {
  const counts = { pass: 0, fail: 0, crash: 0, 'not run': 0 }
  const started = performance.now()
  for (const path of sample) counts[await runTest(name, path)]++
  const ran = counts.pass + counts.fail + counts.crash
  console.log(
    `| ${name} | ${counts.pass} / ${ran} | ${((100 * counts.pass) / ran).toFixed(1)} % | ${counts.crash} | ${counts['not run']} | ${((performance.now() - started) / 1000).toFixed(0)} s |`,
  )
}
