import type { Program } from './program.js'

export const regex: Program[] = [
  {
    name: 'regex: extract emails',
    code: "const text = 'Write to ada@example.com or grace.h@navy.mil, not @nobody.'\ntext.match(/[\\w.]+@[\\w.]+\\.\\w+/g)",
    expect: { value: ['ada@example.com', 'grace.h@navy.mil'] },
  },
  {
    name: 'regex: named groups',
    code: "const m = /(?<year>\\d{4})-(?<month>\\d{2})-(?<day>\\d{2})/.exec('due 2024-03-15!')\n;({ ...m.groups, index: m.index })",
    expect: { value: { year: '2024', month: '03', day: '15', index: 4 } },
  },
  {
    name: 'regex: matchAll with captures',
    code: "const s = 'a=1; b=22; c=333'\n;[...s.matchAll(/(\\w)=(\\d+)/g)].map(([, k, v]) => [k, Number(v)])",
    expect: {
      value: [
        ['a', 1],
        ['b', 22],
        ['c', 333],
      ],
    },
  },
  {
    name: 'regex: replace with a function',
    code: "'price: 10 USD, fee: 2 USD'.replace(/(\\d+) USD/g, (_, n) => `$${(Number(n) * 1.1).toFixed(2)}`)",
    expect: { value: 'price: $11.00, fee: $2.20' },
  },
  {
    name: 'regex: test with lastIndex on a global regex',
    code: "const re = /a/g\n;[re.test('aa'), re.lastIndex, re.test('aa'), re.lastIndex, re.test('aa'), re.lastIndex]",
    expect: { value: [true, 1, true, 2, false, 0] },
  },
  {
    name: 'regex: split on a pattern with a capture',
    code: "['a1b22c'.split(/\\d+/), 'a1b22c'.split(/(\\d+)/), 'one  two\\tthree'.split(/\\s+/)]",
    expect: {
      value: [
        ['a', 'b', 'c'],
        ['a', '1', 'b', '22', 'c'],
        ['one', 'two', 'three'],
      ],
    },
  },
  { name: 'regex: unicode property escapes', code: "'Héllo Wörld 123'.match(/\\p{L}+/gu)", expect: { value: ['Héllo', 'Wörld'] } },
  {
    name: 'regex: sticky flag',
    code: "const re = /\\d+/y\nre.lastIndex = 3\n;[re.exec('abc123def')?.[0], re.lastIndex, re.exec('abc123def')]",
    expect: { value: ['123', 6, null] },
  },
  {
    name: 'regex: lookbehind and lookahead',
    code: "['$5 and $30 and 7'.match(/(?<=\\$)\\d+/g), 'foobar foobaz'.match(/foo(?=baz)/g).length]",
    expect: { value: [['5', '30'], 1] },
  },
  {
    name: 'regex: validate inputs',
    code: "const isHex = (s) => /^#?[0-9a-f]{6}$/i.test(s)\n;['#A0b1C2', 'ffffff', '#12345', 'zzzzzz'].map(isHex)",
    expect: { value: [true, true, false, false] },
  },
  {
    name: 'regex: a RegExp value cannot leave the sandbox',
    code: '/abc/g',
    expect: { error: { code: 'RUNTIME_ERROR', name: 'TypeError' } },
  },
  {
    name: 'regex: source, flags and toString',
    code: "const re = new RegExp('a+b', 'gi')\n;[re.source, re.flags, String(re), re.global, re.ignoreCase]",
    expect: { value: ['a+b', 'gi', '/a+b/gi', true, true] },
  },
  {
    name: 'regex: parse a log line',
    code: "const line = '2024-02-29T12:00:00Z [WARN] disk 91% full (host=db-1)'\nconst m = line.match(/^(\\S+) \\[(\\w+)\\] (.*?) \\(host=([\\w-]+)\\)$/)\n;({ at: m[1], level: m[2], msg: m[3], host: m[4] })",
    expect: { value: { at: '2024-02-29T12:00:00Z', level: 'WARN', msg: 'disk 91% full', host: 'db-1' } },
  },
  {
    name: 'regex: replace special patterns $& and $1',
    code: "['abc'.replace('b', '[$&]'), 'John Smith'.replace(/(\\w+) (\\w+)/, '$2, $1'), 'x'.replace('x', '$$')]",
    expect: { value: ['a[b]c', 'Smith, John', '$'] },
  },
  {
    name: 'regex: an invalid pattern throws a SyntaxError',
    code: "try { new RegExp('(unclosed') } catch (e) { return e.name }",
    expect: { value: 'SyntaxError' },
  },
]
