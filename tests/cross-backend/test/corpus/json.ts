import type { Program } from './program.js'

export const json: Program[] = [
  {
    name: 'json: parse and pick fields',
    code: 'const data = JSON.parse(\'{"user":{"id":7,"name":"Lin"},"tags":["a","b"]}\')\n;({ id: data.user.id, tags: data.tags.length })',
    expect: { value: { id: 7, tags: 2 } },
  },
  {
    name: 'json: stringify with indentation',
    code: 'JSON.stringify({ a: 1, b: [1, 2], c: { d: null } }, null, 2)',
    expect: { value: '{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ],\n  "c": {\n    "d": null\n  }\n}' },
  },
  {
    name: 'json: stringify drops undefined and functions, nulls NaN',
    code: 'JSON.stringify({ a: undefined, b: () => 1, c: NaN, d: [undefined, Infinity], e: new Date(0) })',
    expect: { value: '{"c":null,"d":[null,null],"e":"1970-01-01T00:00:00.000Z"}' },
  },
  {
    name: 'json: replacer array and function',
    code: "const o = { keep: 1, drop: 2, nested: { keep: 3 } }\n;[JSON.stringify(o, ['keep', 'nested']), JSON.stringify(o, (k, v) => (typeof v === 'number' ? v * 10 : v))]",
    expect: { value: ['{"keep":1,"nested":{"keep":3}}', '{"keep":10,"drop":20,"nested":{"keep":30}}'] },
  },
  {
    name: 'json: reviver revives dates',
    code: 'const text = \'{"at":"2024-01-02T03:04:05.000Z","n":1}\'\nconst o = JSON.parse(text, (k, v) => (k === \'at\' ? new Date(v) : v))\n;[o.at instanceof Date, o.at.getUTCHours(), o.n]',
    expect: { value: [true, 3, 1] },
  },
  {
    name: 'json: toJSON is honoured',
    code: 'class Money { constructor(c) { this.cents = c } toJSON() { return (this.cents / 100).toFixed(2) } }\nJSON.stringify({ price: new Money(1999) })',
    expect: { value: '{"price":"19.99"}' },
  },
  {
    name: 'json: invalid JSON throws a SyntaxError that is caught',
    code: "try { JSON.parse('{bad json}') ; return 'parsed' } catch (e) { return [e.name, e instanceof SyntaxError] }",
    expect: { value: ['SyntaxError', true] },
  },
  {
    name: 'json: deep clone via JSON round trip',
    code: "const src = { a: [1, { b: 2 }], c: 'x' }\nconst copy = JSON.parse(JSON.stringify(src))\ncopy.a[1].b = 99\n;[src.a[1].b, copy.a[1].b]",
    expect: { value: [2, 99] },
  },
  {
    name: 'json: structured records to a summary',
    code: 'const orders = JSON.parse(\'[{"total":10.5,"ok":true},{"total":4,"ok":false},{"total":20,"ok":true}]\')\nconst ok = orders.filter((o) => o.ok)\n;({ count: ok.length, sum: ok.reduce((s, o) => s + o.total, 0) })',
    expect: { value: { count: 2, sum: 30.5 } },
  },
  {
    name: 'json: unicode escapes and lone surrogates',
    code: "[JSON.stringify('é\\u2028😀'), JSON.stringify('\\ud800'), JSON.parse('\"\\\\u00e9\"')]",
    expect: { value: ['"é\u2028😀"', '"\\ud800"', 'é'] },
  },
  {
    name: 'json: key order survives a round trip',
    code: 'const o = JSON.parse(\'{"b":1,"a":2,"10":3,"2":4}\')\nObject.keys(o)',
    expect: { value: ['2', '10', 'b', 'a'] },
  },
  {
    name: 'json: stringify a Map needs a conversion',
    code: "const m = new Map([['x', 1], ['y', 2]])\n;[JSON.stringify(m), JSON.stringify(Object.fromEntries(m)), JSON.stringify([...m])]",
    expect: { value: ['{}', '{"x":1,"y":2}', '[["x",1],["y",2]]'] },
  },
  {
    name: 'json: big numbers and precision',
    code: "[JSON.parse('12345678901234567890'), JSON.stringify(0.1 + 0.2), JSON.parse('1e400'), JSON.stringify(-0)]",
    expect: { value: [12345678901234567000, '0.30000000000000004', Infinity, '0'] },
  },
]
