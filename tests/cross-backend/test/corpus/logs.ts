import type { Program } from './program.js'

export const logs: Program[] = [
  {
    name: 'logs: primitives',
    code: "console.log('text', 42, -0, 1.5, true, null, undefined, 10n)\nreturn 0",
    expect: { logs: ['text 42 -0 1.5 true null undefined 10n'] },
  },
  {
    name: 'logs: every level',
    code: "console.log('l'); console.info('i'); console.warn('w'); console.error('e'); console.debug('d')\nreturn 'done'",
    expect: { value: 'done', logs: ['l', 'i', 'w', 'e', 'd'], logLevels: ['log', 'info', 'warn', 'error', 'debug'] },
  },
  {
    name: 'logs: objects and arrays',
    code: "console.log({ a: 1, b: 'two', c: [1, 2, { d: true }] })\nconsole.log([])\nconsole.log({})\nreturn 1",
    expect: { logs: ["{ a: 1, b: 'two', c: [ 1, 2, { d: true } ] }", '[]', '{}'] },
  },
  {
    name: 'logs: nesting past depth 2',
    code: 'console.log({ a: { b: { c: { d: { e: 1 } } } }, list: [[[[1]]]] })\nreturn 1',
    expect: { logs: ['{ a: { b: { c: [Object] } }, list: [ [ [Array] ] ] }'] },
  },
  {
    name: 'logs: Map, Set, Date, RegExp',
    code: "console.log(new Map([['k', 1]]), new Set([1, 'a']), new Date(0), /x+/gi)\nreturn 1",
    expect: { logs: ["Map(1) { 'k' => 1 } Set(2) { 1, 'a' } 1970-01-01T00:00:00.000Z /x+/gi"] },
  },
  {
    name: 'logs: errors print as name and message',
    code: "console.log(new TypeError('bad input'))\nconsole.error('failed:', new Error('x'))\nreturn 1",
    expect: { logs: ['TypeError: bad input', 'failed: Error: x'] },
  },
  {
    name: 'logs: format specifiers',
    code: "console.log('%s has %d items costing %f (%i%%)', 'cart', 3, 9.99, 42.7)\nconsole.log('%j and %o', { a: 1 }, [1])\nreturn 1",
  },
  {
    name: 'logs: functions and classes',
    code: 'function named() {}\nclass Thing {}\nconsole.log(named, () => 1, Thing, Math.max)\nreturn 1',
  },
  {
    name: 'logs: class instances show their class',
    code: 'class Point { constructor() { this.x = 1; this.y = 2 } }\nconsole.log(new Point(), [new Point()])\nreturn 1',
    expect: { logs: ['Point { x: 1, y: 2 } [ Point { x: 1, y: 2 } ]'] },
  },
  {
    name: 'logs: circular structures',
    code: 'const a = { name: "a" }\na.self = a\nconsole.log(a)\nreturn 1', // Node prints `<ref *1> { name: 'a', self: [Circular *1] }`; cordon's inspect leaves out the ref marks.
    expect: { logs: ["{ name: 'a', self: [Circular] }"] },
  },
  {
    name: 'logs: sparse arrays and long arrays',
    code: 'const s = [1, , , 4]\nconsole.log(s)\nconsole.log(Array.from({ length: 120 }, (_, i) => i))\nreturn 1',
  },
  {
    name: 'logs: long objects break across lines',
    code: "console.log({ first: 'a'.repeat(30), second: 'b'.repeat(30), third: 'c'.repeat(30) })\nreturn 1",
  },
  {
    name: 'logs: quoted keys, symbols and getters',
    code: "const o = { 'a-b': 1, [Symbol('s')]: 2, get g() { return 3 }, 'ok_key': 4 }\nconsole.log(o, Symbol('t'))\nreturn 1",
  },
  {
    name: 'logs: strings inside containers are quoted',
    code: `console.log(['it\\'s', "quote\\"d", 'new\\nline'], { s: 'x' }, 'bare')\nreturn 1`,
  },
  {
    name: 'logs: typed arrays, buffers and null-prototype objects',
    code: 'console.log(new Uint8Array([1, 2]), new ArrayBuffer(2), Object.create(null), Object.assign(Object.create(null), { a: 1 }))\nreturn 1',
  },
  {
    name: 'logs: boxed primitives, NaN and Infinity',
    code: "console.log(new Number(1), new String('s'), new Boolean(false), NaN, -Infinity, [NaN, -0])\nreturn 1",
  },
  {
    name: 'logs: console.dir, console.trace and console.table fallback',
    code: "console.dir({ a: 1 })\nconsole.trace('here')\nif (typeof console.table === 'function') console.table([{ a: 1 }])\nreturn Object.keys(console).sort()",
  },
  { name: 'logs: a promise and a weak collection', code: 'console.log(Promise.resolve(1), new WeakMap(), new WeakSet())\nreturn 1' },
  {
    name: 'logs: labelled progress messages in a loop',
    code: "const items = ['a', 'b', 'c']\nfor (const [i, item] of items.entries()) console.info(`[${i + 1}/${items.length}] processing`, item)\nreturn items.length",
    expect: { value: 3, logs: ['[1/3] processing a', '[2/3] processing b', '[3/3] processing c'], logLevels: ['info', 'info', 'info'] },
  },
  {
    name: 'logs: logs before an uncaught error are kept',
    code: "console.log('step 1')\nconsole.warn('about to fail')\nthrow new Error('stop')",
    expect: { error: { code: 'RUNTIME_ERROR', message: 'stop' }, logs: ['step 1', 'about to fail'] },
  },
]
