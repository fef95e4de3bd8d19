// Where the last test run's time went, from the reports it left: the slowest test files, the
// conformance suite per group and backend mode, and the slowest tests.
//
//   node scripts/test-timings.mjs [--top=25] [--dir=<a workspace copy, e.g. the Node 26 one>]
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { root as repo } from './test-jobs.mjs'

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')))
const top = Number(args.top ?? 25)
const root = args.dir ?? repo

/** Every vitest JSON report (jest format) under the workspaces' test-results/. */
function reports() {
  const dirs = ['packages', 'apps', 'tests']
    .flatMap((folder) => (existsSync(join(root, folder)) ? readdirSync(join(root, folder)).map((name) => join(root, folder, name)) : []))
    .concat(root, join(root, 'examples'))
  return dirs.flatMap((dir) => {
    const results = join(dir, 'test-results')
    if (!existsSync(results)) return []
    return readdirSync(results)
      .filter((file) => file.endsWith('.json'))
      .map((file) => JSON.parse(readFileSync(join(results, file), 'utf8')))
      .filter((report) => Array.isArray(report.testResults))
  })
}

const files = []
const tests = []
const groups = new Map()
for (const report of reports()) {
  for (const file of report.testResults) {
    const name = relative(root, file.name)
    files.push({ name, seconds: (file.endTime - file.startTime) / 1000 })
    for (const test of file.assertionResults) {
      const seconds = (test.duration ?? 0) / 1000
      tests.push({ name: `${basename(name)} > ${test.fullName}`, seconds })
      const suite = test.ancestorTitles[0] ?? ''
      if (!suite.startsWith('cordon conformance: ')) continue
      // The mode is the file (conformance-inline.test.ts) in its package (backend-quickjs).
      const mode = `${name.split('/')[1]}/${basename(name).replace(/\.test\.ts$/, '')}`
      const key = `${suite.slice('cordon conformance: '.length)}\t${mode}`
      groups.set(key, (groups.get(key) ?? 0) + seconds)
    }
  }
}

const seconds = (value) => value.toFixed(1).padStart(7)
const print = (title, rows) => {
  console.log(`\n${title}`)
  for (const row of rows.slice(0, top)) console.log(`${seconds(row.seconds)} s  ${row.name}`)
}
print(
  `test files (${files.length}, ${files.reduce((sum, file) => sum + file.seconds, 0).toFixed(0)} s in all)`,
  files.sort((a, b) => b.seconds - a.seconds),
)

// Groups × modes as a table: one row per group, one column per mode, seconds.
const modes = [...new Set([...groups.keys()].map((key) => key.split('\t')[1]))].sort()
const groupNames = [...new Set([...groups.keys()].map((key) => key.split('\t')[0]))]
const total = (group) => modes.reduce((sum, mode) => sum + (groups.get(`${group}\t${mode}`) ?? 0), 0)
groupNames.sort((a, b) => total(b) - total(a))
console.log('\nconformance, seconds per group and mode')
console.log(['group', ...modes, 'all'].join(' | '))
for (const group of groupNames) {
  const cells = modes.map((mode) => (groups.get(`${group}\t${mode}`) ?? 0).toFixed(1))
  console.log([group, ...cells, total(group).toFixed(1)].join(' | '))
}
print(
  'tests',
  tests.sort((a, b) => b.seconds - a.seconds),
)
