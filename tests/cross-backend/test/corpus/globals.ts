import type { Program } from './program.js'

const inventory = [
  { sku: 'A1', name: 'Widget', price: 9.5, stock: 40, updated: new Date(Date.UTC(2024, 0, 15)) },
  { sku: 'B2', name: 'Gadget', price: 20, stock: 0, updated: new Date(Date.UTC(2024, 1, 1)) },
  { sku: 'C3', name: 'Sprocket', price: 1.25, stock: 1200, updated: new Date(Date.UTC(2023, 11, 31)) },
]

// Programs that work on data the host put in as globals.
export const globals: Program[] = [
  {
    name: 'globals: filter inventory',
    code: 'inventory.filter((i) => i.stock > 0).map((i) => i.sku)',
    globals: { inventory },
    expect: { value: ['A1', 'C3'] },
  },
  {
    name: 'globals: dates arrive as dates',
    code: 'inventory.map((i) => i.updated instanceof Date && i.updated.getUTCFullYear())',
    globals: { inventory },
    expect: { value: [2024, 2024, 2023] },
  },
  {
    name: 'globals: most recently updated',
    code: 'inventory.reduce((a, b) => (a.updated > b.updated ? a : b)).name',
    globals: { inventory },
    expect: { value: 'Gadget' },
  },
  {
    name: 'globals: stock value',
    code: 'inventory.reduce((s, i) => s + i.price * i.stock, 0)',
    globals: { inventory },
    expect: { value: 1880 },
  },
  {
    name: 'globals: config with defaults',
    code: 'const settings = { retries: 3, verbose: false, ...config }\nsettings',
    globals: { config: { verbose: true, region: 'eu' } },
    expect: { value: { retries: 3, verbose: true, region: 'eu' } },
  },
  {
    name: 'globals: a Map and a Set as globals',
    code: "[lookup.get('x'), lookup instanceof Map, allowed.has('b'), allowed.size]",
    globals: { lookup: new Map([['x', 10]]), allowed: new Set(['a', 'b']) },
    expect: { value: [10, true, true, 2] },
  },
  {
    name: 'globals: mutating a global does not reach the host',
    code: 'settings.changed = true\nsettings.list.push(4)\nsettings',
    globals: { settings: { list: [1, 2, 3] } },
    expect: { value: { list: [1, 2, 3, 4], changed: true } },
  },
  {
    name: 'globals: special numbers and bigint in globals',
    code: '[Object.is(n.negZero, -0), Number.isNaN(n.nan), n.big * 2n, n.inf > 1e308]',
    globals: { n: { negZero: -0, nan: NaN, big: 2n ** 64n, inf: Infinity } },
    expect: { value: [true, true, 2n ** 65n, true] },
  },
  {
    name: 'globals: a string template from global data',
    code: '`Dear ${user.name}, your ${order.items.length} items ship on ${order.ships.toISOString().slice(0, 10)}.`',
    globals: { user: { name: 'Ada' }, order: { items: ['a', 'b'], ships: new Date(Date.UTC(2024, 2, 1)) } },
    expect: { value: 'Dear Ada, your 2 items ship on 2024-03-01.' },
  },
  {
    name: 'globals: an object with a $ key and a __proto__ key',
    code: "[Object.keys(weird), weird.$, Object.getPrototypeOf(weird) === Object.prototype, weird['__proto__']]",
    globals: { weird: JSON.parse('{"$":"dollar","__proto__":{"x":1}}') },
    expect: { value: [['$', '__proto__'], 'dollar', true, { x: 1 }] },
  },
  {
    name: 'globals: typed arrays and errors as globals',
    code: '[bytes instanceof Uint8Array, bytes.length, err instanceof TypeError, err.message]',
    globals: { bytes: new Uint8Array([1, 2, 3]), err: new TypeError('from host') },
    expect: { value: [true, 3, true, 'from host'] },
  },
]
