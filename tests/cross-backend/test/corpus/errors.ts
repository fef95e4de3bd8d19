import type { Program } from './program.js'

export const errors: Program[] = [
  {
    name: 'errors: an uncaught Error',
    code: "const x = 1\nthrow new Error('something broke')",
    expect: { error: { code: 'RUNTIME_ERROR', name: 'Error', message: 'something broke', line: 2 } },
  },
  {
    name: 'errors: a TypeError from the engine',
    engineMessage: true,
    code: 'const o = null\nreturn o.field',
    expect: { error: { code: 'RUNTIME_ERROR', name: 'TypeError', line: 2 } },
  },
  {
    name: 'errors: a ReferenceError',
    engineMessage: true,
    code: 'const a = 1\n\nreturn a + missingVariable',
    expect: { error: { code: 'RUNTIME_ERROR', name: 'ReferenceError', line: 3 } },
  },
  {
    name: 'errors: a RangeError from toFixed',
    engineMessage: true,
    code: '(1).toFixed(200)',
    expect: { error: { code: 'RUNTIME_ERROR', name: 'RangeError', line: 1 } },
  },
  {
    name: 'errors: thrown and caught, finally runs',
    code: "const steps = []\ntry { steps.push('try'); throw new Error('x') } catch (e) { steps.push('catch ' + e.message) } finally { steps.push('finally') }\nsteps",
    expect: { value: ['try', 'catch x', 'finally'] },
  },
  {
    name: 'errors: an Error value crosses as an Error',
    code: "new RangeError('out of range')",
    expect: { value: new RangeError('out of range') },
  },
  {
    name: 'errors: custom error names cross',
    code: "const e = new Error('nope')\ne.name = 'ValidationError'\n;[e, String(e)]",
    expect: { value: [Object.assign(new Error('nope'), { name: 'ValidationError' }), 'ValidationError: nope'] },
  },
  {
    name: 'errors: throwing a string',
    code: "throw 'plain string'",
    expect: { error: { code: 'RUNTIME_ERROR', message: 'plain string' } },
  },
  {
    name: 'errors: throwing an object',
    code: "throw { code: 42, reason: 'custom' }",
    expect: { error: { code: 'RUNTIME_ERROR', message: "{ code: 42, reason: 'custom' }" } },
  },
  {
    name: 'errors: a rejected promise that is awaited',
    code: "await Promise.reject(new SyntaxError('bad token'))",
    expect: { error: { code: 'RUNTIME_ERROR', name: 'SyntaxError', message: 'bad token' } },
  },
  {
    name: 'errors: error cause',
    code: "try { try { throw new Error('inner') } catch (e) { throw new Error('outer', { cause: e }) } } catch (e) { return [e.message, e.cause.message] }",
    expect: { value: ['outer', 'inner'] },
  },
  {
    name: 'errors: AggregateError from Promise.any',
    code: "try { await Promise.any([Promise.reject(new Error('a')), Promise.reject(new Error('b'))]) } catch (e) { return [e.name, e.errors.map((x) => x.message)] }",
    expect: { value: ['AggregateError', ['a', 'b']] },
  },
  {
    name: 'errors: a syntax error is reported with its line',
    code: 'const a = 1\nconst b = (a +\nreturn b',
    expect: { error: { code: 'SYNTAX_ERROR', name: 'SyntaxError', line: 3 } },
  },
  {
    name: 'errors: an error thrown in a timer ends the run',
    code: "setTimeout(() => { throw new Error('late failure') }, 1)\nawait new Promise((r) => setTimeout(r, 50))\nreturn 'unreachable'",
    expect: { error: { code: 'RUNTIME_ERROR', name: 'Error', message: 'late failure' } },
  },
  {
    name: 'errors: error thrown deep in a call stack',
    code: "function a() { return b() }\nfunction b() { return c() }\nfunction c() { throw new TypeError('deep') }\na()",
    expect: { error: { code: 'RUNTIME_ERROR', name: 'TypeError', message: 'deep', line: 3 } },
  },
  {
    name: 'errors: calling undefined as a function',
    engineMessage: true,
    code: 'const api = {}\napi.missing()',
    expect: { error: { code: 'RUNTIME_ERROR', name: 'TypeError', line: 2 } },
  },
  {
    name: 'errors: stack overflow is a RangeError',
    code: "const f = (n) => f(n + 1) + 1\ntry { f(0) } catch (e) { return e instanceof RangeError || e.name === 'InternalError' }",
    expect: { value: true },
  },
  {
    name: 'errors: instanceof checks on engine errors',
    code: 'const errs = []\ntry { null.x } catch (e) { errs.push(e instanceof TypeError) }\ntry { undefinedThing } catch (e) { errs.push(e instanceof ReferenceError) }\ntry { decodeURIComponent("%") } catch (e) { errs.push(e instanceof URIError) }\nerrs',
    expect: { value: [true, true, true] },
  },
  {
    name: 'errors: an error with a non-string message',
    code: 'const e = new Error(); e.message = 42; throw e',
    expect: { error: { code: 'RUNTIME_ERROR', name: 'Error', message: '42' } },
  },
  {
    name: 'errors: import is refused',
    code: "import fs from 'node:fs'\nfs.readFileSync('/etc/passwd')",
    expect: { error: { code: 'SYNTAX_ERROR', line: 1 } },
  },
]
