import type { Program } from './program.js'

export const classes: Program[] = [
  {
    name: 'classes: a class instance crosses as a plain object',
    code: 'class Point { constructor(x, y) { this.x = x; this.y = y } get len() { return Math.hypot(this.x, this.y) } }\nnew Point(3, 4)',
    expect: { value: { x: 3, y: 4 } },
  },
  {
    name: 'classes: getters and methods',
    code: 'class Point { constructor(x, y) { this.x = x; this.y = y } get len() { return Math.hypot(this.x, this.y) } add(o) { return new Point(this.x + o.x, this.y + o.y) } }\nconst p = new Point(3, 4).add(new Point(3, 4))\n;[p.len, p instanceof Point]',
    expect: { value: [10, true] },
  },
  {
    name: 'classes: inheritance and super',
    code: "class Animal { constructor(name) { this.name = name } speak() { return `${this.name} makes a sound` } }\nclass Dog extends Animal { speak() { return super.speak() + ' (woof)' } }\nnew Dog('Rex').speak()",
    expect: { value: 'Rex makes a sound (woof)' },
  },
  {
    name: 'classes: static members and private fields',
    code: 'class Counter { static created = 0; #n = 0; constructor() { Counter.created++ } inc() { return ++this.#n } }\nconst a = new Counter(), b = new Counter()\na.inc(); a.inc(); b.inc()\n;[a.inc(), b.inc(), Counter.created]',
    expect: { value: [3, 2, 2] },
  },
  {
    name: 'classes: private methods and #x in obj',
    code: 'class Secret { #v = 42; #peek() { return this.#v } static has(o) { return #v in o } reveal() { return this.#peek() } }\n;[new Secret().reveal(), Secret.has(new Secret()), Secret.has({})]',
    expect: { value: [42, true, false] },
  },
  {
    name: 'classes: custom error subclass',
    code: "class HttpError extends Error { constructor(status, msg) { super(msg); this.name = 'HttpError'; this.status = status } }\ntry { throw new HttpError(404, 'not found') } catch (e) { return [e.name, e.message, e.status, e instanceof Error, String(e)] }",
    expect: { value: ['HttpError', 'not found', 404, true, 'HttpError: not found'] },
  },
  {
    name: 'classes: an EventEmitter-like class',
    code: "class Emitter { #h = {}; on(e, f) { (this.#h[e] ??= []).push(f); return this } emit(e, ...a) { return (this.#h[e] ?? []).map((f) => f(...a)) } }\nconst em = new Emitter().on('x', (n) => n + 1).on('x', (n) => n * 2)\nem.emit('x', 5).concat(em.emit('y'))",
    expect: { value: [6, 10] },
  },
  {
    name: 'classes: Symbol.iterator on a class',
    code: 'class Range { constructor(a, b) { this.a = a; this.b = b } *[Symbol.iterator]() { for (let i = this.a; i < this.b; i++) yield i } }\n[...new Range(2, 6)]',
    expect: { value: [2, 3, 4, 5] },
  },
  {
    name: 'classes: toString and Symbol.toPrimitive',
    code: "class Temp { constructor(c) { this.c = c } [Symbol.toPrimitive](hint) { return hint === 'number' ? this.c : `${this.c}°C` } }\nconst t = new Temp(21)\n;[`${t}`, +t + 1, String(t)]",
    expect: { value: ['21°C', 22, '21°C'] },
  },
  {
    name: 'classes: instanceof and prototype chain',
    code: 'class A {} class B extends A {}\nconst b = new B()\n;[b instanceof A, Object.getPrototypeOf(B) === A, B.name, b.constructor.name, typeof A]',
    expect: { value: [true, true, 'B', 'B', 'function'] },
  },
  {
    name: 'classes: accessor property on a returned object is refused',
    code: 'const o = { get now() { return 1 } }\no',
    expect: { error: { code: 'RUNTIME_ERROR', name: 'TypeError' } },
  },
  {
    name: 'classes: a stack data structure',
    code: 'class Stack { #items = []; push(x) { this.#items.push(x); return this } pop() { return this.#items.pop() } get size() { return this.#items.length } }\nconst s = new Stack().push(1).push(2).push(3)\n;[s.pop(), s.size, { ...s }]',
    expect: { value: [3, 2, {}] },
  },
  {
    name: 'classes: mixins',
    code: "const Timestamped = (Base) => class extends Base { stamp() { return 'stamped ' + this.id } }\nclass Item { constructor() { this.id = 'i1' } }\nclass Doc extends Timestamped(Item) {}\nnew Doc().stamp()",
    expect: { value: 'stamped i1' },
  },
]
