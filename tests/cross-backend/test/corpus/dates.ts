import { clockTools, FIXED_NOW } from './tools.js'
import type { Program } from './program.js'

// Deterministic only: fixed timestamps, UTC getters, ISO strings. No Date.now(), no local time zone.
export const dates: Program[] = [
  {
    name: 'dates: ISO string of a fixed timestamp',
    code: 'new Date(1700000000000).toISOString()',
    expect: { value: '2023-11-14T22:13:20.000Z' },
  },
  { name: 'dates: a Date crosses as a Date', code: "new Date('2024-02-29T12:34:56.789Z')", expect: { value: new Date(FIXED_NOW) } },
  {
    name: 'dates: UTC parts',
    code: 'const d = new Date(Date.UTC(2024, 0, 31, 23, 59, 58))\n;[d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCDay(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()]',
    expect: { value: [2024, 0, 31, 3, 23, 59, 58] },
  },
  {
    name: 'dates: add days across a month end',
    code: 'const d = new Date(Date.UTC(2024, 0, 30))\nd.setUTCDate(d.getUTCDate() + 3)\nd.toISOString().slice(0, 10)',
    expect: { value: '2024-02-02' },
  },
  {
    name: 'dates: days between two dates',
    code: "const a = Date.parse('2024-01-01T00:00:00Z'), b = Date.parse('2024-12-31T00:00:00Z')\n;(b - a) / 86_400_000",
    expect: { value: 365 },
  },
  {
    name: 'dates: leap years',
    code: 'const leap = (y) => new Date(Date.UTC(y, 1, 29)).getUTCMonth() === 1\n;[1900, 2000, 2023, 2024].map(leap)',
    expect: { value: [false, true, false, true] },
  },
  {
    name: 'dates: invalid dates',
    code: "const d = new Date('not a date')\n;[Number.isNaN(d.getTime()), String(d), d]",
    expect: { value: [true, 'Invalid Date', new Date(NaN)] },
  },
  {
    name: 'dates: sort events by time',
    code: "const events = [{ n: 'b', at: '2024-03-01T10:00:00Z' }, { n: 'a', at: '2023-12-31T23:00:00Z' }, { n: 'c', at: '2024-03-01T09:59:59Z' }]\nevents.sort((x, y) => Date.parse(x.at) - Date.parse(y.at)).map((e) => e.n)",
    expect: { value: ['a', 'c', 'b'] },
  },
  {
    name: 'dates: format as YYYY-MM-DD HH:mm by hand',
    code: "const d = new Date(Date.UTC(2024, 6, 4, 5, 6))\nconst p = (n) => String(n).padStart(2, '0')\n;`${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`",
    expect: { value: '2024-07-04 05:06' },
  },
  {
    name: 'dates: toJSON and JSON of a date',
    code: 'const d = new Date(Date.UTC(2000, 0, 1))\n;[d.toJSON(), JSON.stringify({ d }), d.valueOf()]',
    expect: { value: ['2000-01-01T00:00:00.000Z', '{"d":"2000-01-01T00:00:00.000Z"}', 946684800000] },
  },
  {
    name: 'dates: date from a tool, then arithmetic',
    code: 'const now = await clock.now()\nconst nextWeek = new Date(now.getTime() + 7 * 86_400_000)\n;({ now: now.toISOString(), nextWeek: nextWeek.toISOString().slice(0, 10), isDate: now instanceof Date })',
    tools: clockTools(),
    expect: { value: { now: '2024-02-29T12:34:56.789Z', nextWeek: '2024-03-07', isDate: true } },
  },
  {
    name: 'dates: start of the ISO week (Monday)',
    code: 'const d = new Date(Date.UTC(2024, 1, 29))\nconst dow = (d.getUTCDay() + 6) % 7\nnew Date(d.getTime() - dow * 86_400_000).toISOString().slice(0, 10)',
    expect: { value: '2024-02-26' },
  },
  {
    name: 'dates: the extremes of the Date range',
    code: '[new Date(8.64e15).toISOString(), new Date(-8.64e15).toISOString(), new Date(8.64e15 + 1).getTime()]',
    expect: { value: ['+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', NaN] },
  },
  {
    name: 'dates: Date.UTC with out-of-range parts normalises',
    code: 'new Date(Date.UTC(2023, 12, 32, 25)).toISOString()',
    expect: { value: '2024-02-02T01:00:00.000Z' },
  },
]
