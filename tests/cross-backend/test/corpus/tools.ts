/**
 * Host tools the corpus programs call: a small fake shop (users, orders, products), a
 * key-value store, a clock frozen at a fixed instant, and tools that fail on purpose.
 * Everything is deterministic: same answers, in the same order, on every backend.
 */
import type { ToolSet } from '@cordon/core'

const USERS = [
  { id: 1, name: 'Ada Lovelace', email: 'ada@example.com', tier: 'gold', joined: '2021-03-14T09:26:53.000Z' },
  { id: 2, name: 'Alan Turing', email: 'alan@example.com', tier: 'silver', joined: '2022-06-23T12:00:00.000Z' },
  { id: 3, name: 'Grace Hopper', email: 'grace@example.com', tier: 'gold', joined: '2020-12-09T00:00:00.000Z' },
  { id: 4, name: 'Edsger Dijkstra', email: 'edsger@example.com', tier: 'bronze', joined: '2023-05-11T18:30:00.000Z' },
]

const ORDERS = [
  {
    id: 101,
    userId: 1,
    items: [
      { sku: 'A1', qty: 2, price: 9.5 },
      { sku: 'B2', qty: 1, price: 20 },
    ],
    status: 'shipped',
  },
  { id: 102, userId: 1, items: [{ sku: 'C3', qty: 5, price: 1.25 }], status: 'pending' },
  { id: 103, userId: 2, items: [{ sku: 'A1', qty: 1, price: 9.5 }], status: 'shipped' },
  {
    id: 104,
    userId: 3,
    items: [
      { sku: 'D4', qty: 3, price: 14 },
      { sku: 'A1', qty: 4, price: 9.5 },
    ],
    status: 'cancelled',
  },
  { id: 105, userId: 3, items: [{ sku: 'B2', qty: 2, price: 20 }], status: 'shipped' },
]

const PRODUCTS: Record<string, { name: string; stock: number; tags: string[] }> = {
  A1: { name: 'Widget', stock: 40, tags: ['tools', 'small'] },
  B2: { name: 'Gadget', stock: 0, tags: ['electronics'] },
  C3: { name: 'Sprocket', stock: 1200, tags: ['tools', 'bulk'] },
  D4: { name: 'Gizmo', stock: 7, tags: ['electronics', 'small'] },
}

/** 2024-02-29T12:34:56.789Z: a leap day, so date programs meet an edge case. */
export const FIXED_NOW = Date.UTC(2024, 1, 29, 12, 34, 56, 789)

const clone = <T>(value: T): T => structuredClone(value)
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export function shopTools(): ToolSet {
  return {
    'users.list': { description: 'All users', execute: async () => clone(USERS) },
    'users.get': {
      description: 'One user by id',
      inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      execute: async ({ id }: { id: number }) => {
        const user = USERS.find((u) => u.id === id)
        if (user === undefined) throw new Error(`user ${id} not found`)
        return clone(user)
      },
    },
    'orders.byUser': {
      execute: async ({ userId }: { userId: number }) => {
        // Later users answer sooner (user 4 at once, user 1 after 30 ms), so concurrent calls
        // settle out of call order; the gaps are wide enough for a loaded machine.
        await delay(10 * Math.max(0, 4 - userId))
        return clone(ORDERS.filter((o) => o.userId === userId))
      },
    },
    'products.get': {
      execute: async ({ sku }: { sku: string }) => (sku in PRODUCTS ? { sku, ...clone(PRODUCTS[sku]!) } : null),
    },
  }
}

export function kvTools(): ToolSet {
  const store = new Map<string, unknown>()
  return {
    'kv.set': { execute: async ({ key, value }: { key: string; value: unknown }) => void store.set(key, value) },
    'kv.get': { execute: async ({ key }: { key: string }) => store.get(key) },
    'kv.keys': { execute: async () => [...store.keys()].sort() },
  }
}

export function clockTools(): ToolSet {
  return { 'clock.now': { description: 'The current time, frozen for tests', execute: async () => new Date(FIXED_NOW) } }
}

export function timerTools(): ToolSet {
  // Only for races whose outcome must not depend on machine load: the gap is a whole second.
  return {
    'timer.wait': {
      execute: async ({ ms }: { ms: number }, { signal }) => {
        await new Promise((resolve) => {
          const t = setTimeout(resolve, ms)
          signal.addEventListener('abort', () => {
            clearTimeout(t)
            resolve(undefined)
          })
        })
        return ms
      },
    },
  }
}

export function failingTools(): ToolSet {
  return {
    'api.fail': { execute: async ({ reason }: { reason: string }) => Promise.reject(new Error(`upstream said: ${reason}`)) },
    'api.badInput': { execute: async () => Promise.reject(new TypeError('expected a non-empty query')) },
    'api.flaky': {
      // Fails on odd attempts: a retry loop succeeds on the second try.
      execute: async ({ attempt }: { attempt: number }) => {
        if (attempt % 2 === 1) throw new Error(`attempt ${attempt} timed out`)
        return { attempt, data: 'ok' }
      },
    },
  }
}

export function mathTools(): ToolSet {
  return {
    'math.add': { execute: async ({ a, b }: { a: number; b: number }) => a + b },
    // Synchronous: every backend (and mode) has syncHostCalls.
    'math.mul': { sync: true, execute: ({ a, b }: { a: number; b: number }) => a * b },
    'math.check': {
      sync: true,
      execute: ({ n }: { n: number }) => {
        if (n < 0) throw new TypeError(`expected a non-negative number, got ${n}`)
        return { n, sqrt: Math.sqrt(n), at: new Date(0) }
      },
    },
    echo: { execute: async (args: unknown) => args },
  }
}
