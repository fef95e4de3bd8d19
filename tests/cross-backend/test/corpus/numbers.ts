import type { Program } from './program.js'

export const numbers: Program[] = [
  {
    name: 'numbers: rounding money',
    code: '[0.1 + 0.2, Math.round((0.1 + 0.2) * 100) / 100, (1.005).toFixed(2), (2.5).toFixed(0), Math.round(-2.5)]',
    expect: { value: [0.30000000000000004, 0.3, '1.00', '3', -2] },
  },
  {
    name: 'numbers: toString in other radixes and parseInt',
    code: "[(255).toString(16), (255).toString(2), parseInt('ff', 16), parseInt('0x1A'), parseInt('12px'), Number('12px'), parseFloat('3.14abc')]",
    expect: { value: ['ff', '11111111', 255, 26, 12, NaN, 3.14] },
  },
  {
    name: 'numbers: statistics',
    code: 'const xs = [2, 4, 4, 4, 5, 5, 7, 9]\nconst mean = xs.reduce((a, b) => a + b) / xs.length\nconst sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length)\nconst sorted = [...xs].sort((a, b) => a - b)\n;({ mean, sd, median: (sorted[3] + sorted[4]) / 2, min: Math.min(...xs), max: Math.max(...xs) })',
    expect: { value: { mean: 5, sd: 2, median: 4.5, min: 2, max: 9 } },
  },
  {
    name: 'numbers: special values cross',
    code: '[NaN, Infinity, -Infinity, -0, 0, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, Number.EPSILON]',
    expect: { value: [NaN, Infinity, -Infinity, -0, 0, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, Number.EPSILON] },
  },
  {
    name: 'numbers: BigInt arithmetic',
    code: "const f = (n) => (n <= 1n ? 1n : n * f(n - 1n))\n;[f(25n), 2n ** 64n - 1n, BigInt('123456789012345678901234567890') % 97n, -7n / 2n, typeof 1n]",
    expect: { value: [15511210043330985984000000n, 18446744073709551615n, 123456789012345678901234567890n % 97n, -3n, 'bigint'] },
  },
  {
    name: 'numbers: Number formatting without Intl',
    code: '[(1234.5678).toFixed(2), (0.000123).toExponential(1), (123.456).toPrecision(4), (1e21).toString(), (1e-7).toString(), String(2 ** 53 + 1)]',
    expect: { value: ['1234.57', '1.2e-4', '123.5', '1e+21', '1e-7', '9007199254740992'] },
  },
  {
    name: 'numbers: thousands separators by regex',
    code: "const fmt = (n) => n.toFixed(2).replace(/\\B(?=(\\d{3})+(?!\\d))/g, ',')\n;[fmt(1234567.891), fmt(12), fmt(-9876543)]",
    expect: { value: ['1,234,567.89', '12.00', '-9,876,543.00'] },
  },
  {
    name: 'numbers: Math functions',
    code: '[Math.floor(-1.5), Math.ceil(-1.5), Math.trunc(-1.5), Math.sign(-3), Math.abs(-0), Math.cbrt(27), Math.hypot(5, 12), Math.log2(1024), Math.clz32(1)]',
    expect: { value: [-2, -1, -1, -1, 0, 3, 13, 10, 31] },
  },
  {
    name: 'numbers: integer checks',
    code: '[Number.isInteger(5.0), Number.isSafeInteger(2 ** 53), Number.isNaN("x"), isNaN("x"), Number.isFinite("1"), isFinite("1")]',
    expect: { value: [true, false, false, true, false, true] },
  },
  {
    name: 'numbers: bit operations',
    code: '[5 & 3, 5 | 3, 5 ^ 3, ~5, 1 << 31, -1 >>> 28, 2 ** 32 | 0]',
    expect: { value: [1, 7, 6, -6, -2147483648, 15, 0] },
  },
  {
    name: 'numbers: percentages and ratios',
    code: 'const done = 37, total = 120\n;({ pct: Math.round((done / total) * 1000) / 10, ratio: `${done}/${total}`, left: total - done })',
    expect: { value: { pct: 30.8, ratio: '37/120', left: 83 } },
  },
  {
    name: 'numbers: deterministic pseudo-random (mulberry32)',
    code: 'function mulberry32(a) { return function () { let t = (a += 0x6d2b79f5); t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296 } }\nconst rand = mulberry32(42)\nArray.from({ length: 5 }, () => Math.floor(rand() * 100))',
  },
  {
    name: 'numbers: BigInt and Number do not mix',
    code: 'try { return 1n + 1 } catch (e) { return e.name }',
    expect: { value: 'TypeError' },
  },
  {
    name: 'numbers: Math.random is a number in [0, 1)',
    code: 'const xs = Array.from({ length: 100 }, Math.random)\nxs.every((x) => typeof x === "number" && x >= 0 && x < 1)',
    expect: { value: true },
  },
]
