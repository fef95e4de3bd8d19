/** The module map the `modules` checks import from: plain JavaScript, TypeScript, a cycle, re-exports. */
import type { ModuleMap } from '@cordon/core'

export const LIBRARY: ModuleMap = {
  'vetted-math': [
    'export function add(a, b) { return a + b }',
    'export const PI2 = 6.28',
    'export default function twice(x) { return x * 2 }',
  ].join('\n'),
  './helpers.js': [
    "import twice, { add } from 'vetted-math'",
    "export * from 'vetted-math'",
    "export { add as plus, default as double } from 'vetted-math'",
    'export const four = twice(add(1, 1))',
  ].join('\n'),
  'cycle-a': ["import { b } from 'cycle-b'", "export function a(n) { return n <= 0 ? 'a' : 'a' + b(n - 1) }"].join('\n'),
  'cycle-b': ["import { a } from 'cycle-a'", "export function b(n) { return n <= 0 ? 'b' : 'b' + a(n - 1) }"].join('\n'),
  'typed.ts': [
    'interface Point { x: number; y: number }',
    'export function norm1(p: Point): number {',
    '  return Math.abs(p.x) + Math.abs(p.y)',
    '}',
    'export const origin: Point = { x: 0, y: 0 }',
  ].join('\n'),
  // Counts its own evaluations in a global: a module evaluates once per run however often imported.
  counted: ['globalThis.__evaluations = (globalThis.__evaluations || 0) + 1', 'export const evaluations = globalThis.__evaluations'].join(
    '\n',
  ),
  thrower: ['export function fail() {', "  throw new Error('thrown in a module')", '}'].join('\n'),
  state: ['export const box = { value: 0 }', 'export function bump() { return ++box.value }'].join('\n'),
}
