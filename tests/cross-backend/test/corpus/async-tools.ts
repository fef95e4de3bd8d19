import { failingTools, kvTools, mathTools, shopTools, timerTools } from './tools.js'
import type { Program } from './program.js'

const shop = shopTools()

export const asyncTools: Program[] = [
  {
    name: 'tools: one call, one field',
    code: 'const user = await users.get({ id: 2 })\nuser.name',
    tools: shop,
    expect: { value: 'Alan Turing' },
  },
  {
    name: 'tools: chain user → orders → total',
    code: 'const user = await users.get({ id: 1 })\nconst list = await orders.byUser({ userId: user.id })\nlist.flatMap((o) => o.items).reduce((s, i) => s + i.qty * i.price, 0)',
    tools: shop,
    expect: { value: 45.25 },
  },
  {
    name: 'tools: Promise.all keeps call order',
    code: 'const all = await Promise.all([1, 2, 3].map((userId) => orders.byUser({ userId })))\nall.map((os) => os.map((o) => o.id))',
    tools: shop,
    expect: { value: [[101, 102], [103], [104, 105]] },
  },
  {
    name: 'tools: Promise.race picks the quickest',
    code: 'await Promise.race([timer.wait({ ms: 1000 }).then(() => "slow"), timer.wait({ ms: 0 }).then(() => "fast")])',
    tools: timerTools(),
    expect: { value: 'fast' },
  },
  {
    name: 'tools: Promise.allSettled with a failure',
    code: "const r = await Promise.allSettled([users.get({ id: 1 }), users.get({ id: 99 })])\nr.map((x) => (x.status === 'fulfilled' ? x.value.id : x.reason.message))",
    tools: shop,
    expect: { value: [1, 'user 99 not found'] },
  },
  {
    name: 'tools: schema validation rejects bad input',
    code: "try { await users.get({ id: 'two' }) } catch (e) { return [e.name, e.message.startsWith('Invalid arguments for tool users.get')] }",
    tools: shop,
    expect: { value: ['TypeError', true] },
  },
  {
    name: 'tools: a tool error reaches the guest as an Error',
    code: "try { await api.fail({ reason: 'rate limited' }) } catch (e) { return [e instanceof Error, e.name, e.message] }",
    tools: failingTools(),
    expect: { value: [true, 'Error', 'upstream said: rate limited'] },
  },
  {
    name: 'tools: a TypeError from a tool stays a TypeError',
    code: 'await api.badInput({}).catch((e) => `${e.name}: ${e.message}`)',
    tools: failingTools(),
    expect: { value: 'TypeError: expected a non-empty query' },
  },
  {
    name: 'tools: retry loop',
    code: 'let attempt = 1, result, errors = []\nwhile (true) { try { result = await api.flaky({ attempt }); break } catch (e) { errors.push(e.message); attempt++ } }\n;({ result, errors })',
    tools: failingTools(),
    expect: { value: { result: { attempt: 2, data: 'ok' }, errors: ['attempt 1 timed out'] } },
  },
  {
    name: 'tools: an uncaught tool error fails the run',
    code: "const x = 1\nawait api.fail({ reason: 'boom' })\nreturn x",
    tools: failingTools(),
    expect: { error: { code: 'RUNTIME_ERROR', name: 'Error', message: 'upstream said: boom' } },
  },
  {
    name: 'tools: key-value store round trip with rich values',
    code: "await kv.set({ key: 'when', value: new Date(0) })\nawait kv.set({ key: 'set', value: new Set([1, 2]) })\nawait kv.set({ key: 'big', value: 2n ** 70n })\nconst keys = await kv.keys()\nconst got = await Promise.all(keys.map((key) => kv.get({ key })))\n;({ keys, got })",
    tools: kvTools(),
    expect: { value: { keys: ['big', 'set', 'when'], got: [2n ** 70n, new Set([1, 2]), new Date(0)] } },
  },
  {
    name: 'tools: synchronous calls mixed with awaited ones, in a loop',
    code: 'let total = 0\nfor (let i = 1; i <= 5; i++) total += math.mul({ a: i, b: await math.add({ a: i, b: 1 }) })\ntotal',
    tools: mathTools(),
    expect: { value: 70 },
  },
  {
    name: 'tools: a synchronous tool returns extended values and throws a catchable TypeError',
    code: 'const ok = math.check({ n: 9 })\nlet failed\ntry { math.check({ n: -1 }) } catch (e) { failed = e instanceof TypeError && e.message }\n({ ok, failed })',
    tools: mathTools(),
    expect: { value: { ok: { n: 9, sqrt: 3, at: new Date(0) }, failed: 'expected a non-negative number, got -1' } },
  },
  {
    name: 'tools: echo returns exactly what was sent',
    code: "await echo({ n: -0, nan: NaN, u: undefined, list: [1, , 3], nested: { $: 'dollar' } })",
    tools: mathTools(),
    expect: { value: { n: -0, nan: NaN, u: undefined, list: [1, undefined, 3], nested: { $: 'dollar' } } },
  },
  {
    name: 'tools: a missing key comes back undefined',
    code: "[await kv.get({ key: 'nothing' }), typeof (await kv.get({ key: 'nothing' }))]",
    tools: kvTools(),
    expect: { value: [undefined, 'undefined'] },
  },
  {
    name: 'tools: sequential loop with await in for...of',
    code: "const names = []\nfor (const id of [3, 1, 4]) names.push((await users.get({ id })).name.split(' ')[0])\nnames.join(', ')",
    tools: shop,
    expect: { value: 'Grace, Ada, Edsger' },
  },
  {
    name: 'tools: join users with products',
    code: 'const skus = new Set((await orders.byUser({ userId: 3 })).flatMap((o) => o.items.map((i) => i.sku)))\nconst found = await Promise.all([...skus].map((sku) => products.get({ sku })))\nfound.filter((p) => p.stock > 0).map((p) => p.name).sort()',
    tools: shop,
    expect: { value: ['Gizmo', 'Widget'] },
  },
  {
    name: 'tools: a local that shadows its tool namespace is in its TDZ',
    engineMessage: true,
    code: 'const users = await users.list()\nusers.length',
    tools: shop,
    expect: { error: { code: 'RUNTIME_ERROR', name: 'ReferenceError', line: 1 } },
  },
  { name: 'tools: unknown product is null', code: "await products.get({ sku: 'ZZ' })", tools: shop, expect: { value: null } },
  {
    name: 'tools: passing a function as an argument rejects in the guest',
    code: 'try { await echo({ cb: () => 1 }) } catch (e) { return [e.name, e.message] }',
    tools: mathTools(),
  },
  {
    name: 'tools: setTimeout-based delay between calls',
    code: 'const sleep = (ms) => new Promise((r) => setTimeout(r, ms))\nconst a = await math.add({ a: 1, b: 2 })\nawait sleep(5)\nconst b = await math.add({ a, b: 10 })\nb',
    tools: mathTools(),
    expect: { value: 13 },
  },
  {
    name: 'tools: tiers report with labelled sections',
    code: "const all = await users.list()\nconst byTier = {}\nfor (const u of all) (byTier[u.tier] ??= []).push(u.name)\n;({ total: all.length, gold: byTier.gold, others: Object.keys(byTier).filter((t) => t !== 'gold') })",
    tools: shop,
    expect: { value: { total: 4, gold: ['Ada Lovelace', 'Grace Hopper'], others: ['silver', 'bronze'] } },
  },
  {
    name: 'tools: async arrow program',
    code: 'async () => {\n  const [a, b] = await Promise.all([math.add({ a: 1, b: 1 }), math.add({ a: 2, b: 2 })])\n  return a * b\n}',
    tools: mathTools(),
    expect: { value: 8 },
  },
]
