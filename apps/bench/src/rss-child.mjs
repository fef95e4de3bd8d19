// One contender's RSS growth, in a process that holds nothing else (see rss-runner.mjs).
//   node --no-node-snapshot --expose-gc src/rss-child.mjs <contender-id> '<plan.rss as JSON>'
import { loadContenders } from './contenders/index.mjs'
import { reasonOf } from './reason.mjs'
import { measureOne } from './rss-runner.mjs'

const [id, planJson] = process.argv.slice(2)
const [contender] = await loadContenders([id])
try {
  if (contender === undefined) throw new Error(`no contender ${id}`)
  if (contender.unavailable) throw new Error(contender.unavailable)
  console.log(JSON.stringify(await measureOne(contender, JSON.parse(planJson))))
} catch (error) {
  console.log(JSON.stringify({ error: reasonOf(error) }))
} finally {
  await contender?.dispose?.()
  // A pool's timer must not keep this process (and the benchmark waiting on it) alive.
  process.exit(0)
}
