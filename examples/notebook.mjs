// A notebook-style agent: each step is one run in the same session, so a helper defined in
// one step is there in the next. Run: node examples/notebook.mjs
import assert from 'node:assert/strict'
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

const sandbox = createSandbox(createQuickJSBackend())
const notebook = await sandbox.createSession({
  tools: {
    'data.sales': {
      execute: async () => [
        { region: 'eu', total: 120 },
        { region: 'us', total: 340 },
        { region: 'eu', total: 80 },
      ],
    },
  },
})

const steps = [
  'const rows = await data.sales()\nrows.length',
  'function sumBy(list, key) {\n  const sums = {}\n  for (const row of list) sums[row[key]] = (sums[row[key]] ?? 0) + row.total\n  return sums\n}',
  'const byRegion = sumBy(rows, "region")\nconsole.log(byRegion)\nObject.keys(byRegion)',
  'byRegion.eu / (byRegion.eu + byRegion.us)',
]
const values = []
for (const [i, code] of steps.entries()) {
  const r = await notebook.run(code)
  assert.ok(r.ok, JSON.stringify(r))
  for (const entry of r.logs) console.log(`  [${i + 1}] ${entry.message}`)
  console.log(`[${i + 1}] →`, r.value)
  values.push(r.value)
}
assert.deepEqual(values, [3, undefined, ['eu', 'us'], 200 / 540])

// An error in one step keeps the session and everything defined before it.
const failed = await notebook.run('byRegion.asia.total')
console.log(`[5] ${failed.ok ? 'ok' : `${failed.error.code}: ${failed.error.message}`}`)
const after = await notebook.run('Object.keys(byRegion).length')
assert.equal(after.ok && after.value, 2)
await sandbox.dispose()
