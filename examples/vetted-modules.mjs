// Vetted modules: the guest imports exactly the modules the host hands it, here a small
// utility library read from ./vetted-lib by loaders the host runs before each run. Nothing
// else is importable: not npm packages, not files, not node: built-ins.
// Run: node examples/vetted-modules.mjs
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

const lib = (file) => () => readFile(new URL(`./vetted-lib/${file}`, import.meta.url), 'utf8')

// Sandbox defaults: every run of this sandbox can import these two modules.
const sandbox = createSandbox(createQuickJSBackend(), {
  modules: { collections: lib('collections.js'), 'money.ts': lib('money.ts') },
})

const code = `
import { groupBy, sortBy } from 'collections'
import { total, format } from 'money.ts'

const byCustomer = groupBy(orders, 'customer')
const totals = Object.entries(byCustomer).map(([customer, lines]) => ({ customer, total: format(total(lines)) }))
let refused = ''
try { await import('node:fs') } catch (e) { refused = e.message }
return { totals: sortBy(totals, 'customer'), refused }`

const orders = [
  { customer: 'grace', item: 'compiler', cents: 125000 },
  { customer: 'ada', item: 'engine', cents: 99999 },
  { customer: 'grace', item: 'manual', cents: 1999 },
]
const r = await sandbox.run(code, { globals: { orders } })
assert.ok(r.ok, JSON.stringify(r))
for (const { customer, total } of r.value.totals) console.log(`${customer}: ${total}`)
console.log('import("node:fs"):', r.value.refused)
await sandbox.dispose()
