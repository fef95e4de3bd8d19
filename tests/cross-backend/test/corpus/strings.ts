import type { Program } from './program.js'

export const strings: Program[] = [
  {
    name: 'strings: slugify a title',
    code: "const title = '  Hello, World! Café & Crème  '\ntitle.trim().toLowerCase().normalize('NFD').replace(/[\\u0300-\\u036f]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')",
    expect: { value: 'hello-world-cafe-creme' },
  },
  {
    name: 'strings: pad and format a table',
    code: "const rows = [['apple', 3], ['kiwi', 12], ['banana', 100]]\nrows.map(([n, q]) => n.padEnd(8, '.') + String(q).padStart(4)).join('\\n')",
    expect: { value: 'apple...   3\nkiwi....  12\nbanana.. 100' },
  },
  {
    name: 'strings: count words',
    code: "const text = 'the cat and the hat and the bat'\nconst counts = {}\nfor (const w of text.split(' ')) counts[w] = (counts[w] ?? 0) + 1\ncounts",
    expect: { value: { the: 3, cat: 1, and: 2, hat: 1, bat: 1 } },
  },
  {
    name: 'strings: template literal with expressions',
    code: "const user = { name: 'Ada', items: 3 }\n;`${user.name} has ${user.items} item${user.items === 1 ? '' : 's'}`",
    expect: { value: 'Ada has 3 items' },
  },
  { name: 'strings: split, join, reverse', code: "'stressed'.split('').reverse().join('')", expect: { value: 'desserts' } },
  {
    name: 'strings: unicode code points and length',
    code: "const s = 'a😀b'\n;({ length: s.length, points: [...s].length, code: s.codePointAt(1), fromCode: String.fromCodePoint(0x1f600) === '😀' })",
    expect: { value: { length: 4, points: 3, code: 0x1f600, fromCode: true } },
  },
  {
    name: 'strings: replaceAll and at',
    code: "['a-b-c'.replaceAll('-', '+'), 'hello'.at(-1), 'abc'.repeat(3)]",
    expect: { value: ['a+b+c', 'o', 'abcabcabc'] },
  },
  {
    name: 'strings: startsWith, endsWith, includes, indexOf',
    code: "const s = 'report-2024.csv'\n;[s.startsWith('report'), s.endsWith('.csv'), s.includes('2024'), s.indexOf('-'), s.lastIndexOf('.')]",
    expect: { value: [true, true, true, 6, 11] },
  },
  {
    name: 'strings: camelCase to snake_case',
    code: "['userId', 'createdAt', 'HTTPServerError'].map((s) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toLowerCase())",
    expect: { value: ['user_id', 'created_at', 'http_server_error'] },
  },
  {
    name: 'strings: truncate with ellipsis',
    code: "const truncate = (s, n) => (s.length <= n ? s : s.slice(0, n - 1) + '…')\n;[truncate('short', 10), truncate('a much longer sentence', 10)]",
    expect: { value: ['short', 'a much lo…'] },
  },
  {
    name: 'strings: localeCompare-free case-insensitive sort',
    code: "['banana', 'Apple', 'cherry', 'apple'].sort((a, b) => { const x = a.toLowerCase(), y = b.toLowerCase(); return x < y ? -1 : x > y ? 1 : a < b ? -1 : 1 })",
    expect: { value: ['Apple', 'apple', 'banana', 'cherry'] },
  },
  {
    name: 'strings: base64-like encoding by hand',
    code: "const bytes = [...'Hi!'].map((c) => c.charCodeAt(0))\nbytes.map((b) => b.toString(16).padStart(2, '0')).join(' ')",
    expect: { value: '48 69 21' },
  },
  {
    name: 'strings: encodeURIComponent and decodeURIComponent',
    code: "const q = 'a b&c=d/é'\n;[encodeURIComponent(q), decodeURIComponent(encodeURIComponent(q)) === q, encodeURI('https://x.test/a b')]",
    expect: { value: ['a%20b%26c%3Dd%2F%C3%A9', true, 'https://x.test/a%20b'] },
  },
  {
    name: 'strings: build a CSV line with quoting',
    code: "const cell = (v) => (/[\",\\n]/.test(String(v)) ? '\"' + String(v).replaceAll('\"', '\"\"') + '\"' : String(v))\n;['plain', 'has,comma', 'say \"hi\"', 42].map(cell).join(',')",
    expect: { value: 'plain,"has,comma","say ""hi""",42' },
  },
  {
    name: 'strings: trimStart, trimEnd and whitespace kinds',
    code: "const s = '\\t\\u00a0 text \\n'\n;[s.trimStart(), s.trimEnd(), s.trim().length]",
    expect: { value: ['text \n', '\t\u00a0 text', 4] },
  },
]
