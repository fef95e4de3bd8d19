/**
 * Vetted modules (the `modules` option): the program imports exactly the ES modules the host
 * gives, statically and with `import()`. Core rewrites imports and ships the modules with the
 * program, so every backend must give the same values; a module evaluates in the guest, so its
 * loops and allocations end the run as the program's own would.
 */
import type { ModuleMap } from '@cordon/core'
import { expectError, expectHealthy, expectHostError, expectLimitName, expectOk, runOk, summarize, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'
import { LIBRARY } from './modules-library.js'
import { countedTools, durableSandbox, expectPaused } from './durable-harness.js'

const check = (name: string, run: ConformanceCheck['run'], extra: Partial<ConformanceCheck> = {}): ConformanceCheck => ({
  group: 'modules',
  name,
  run,
  ...extra,
})

const modules = LIBRARY

export const modulesChecks: readonly ConformanceCheck[] = [
  check('static imports: named, default, namespace, renamed', async ({ sandbox }) => {
    const code = [
      "import twice, { add as sum, PI2 } from 'vetted-math'",
      "import * as math from 'vetted-math'",
      'return [twice(4), sum(2, 3), PI2, math.add(1, 1), math.default(5), Object.keys(math).sort()]',
    ].join('\n')
    expectSameValue(await runOk(sandbox, code, { modules }), [8, 5, 6.28, 2, 10, ['PI2', 'add', 'default']], 'the imports')
  }),

  check('dynamic import() resolves to the namespace; its module evaluates only then', async ({ sandbox }) => {
    const code = [
      'const before = globalThis.__evaluations',
      "const ns = await import('counted')",
      "const again = await import('counted')",
      'return [before, ns.evaluations, ns === again, typeof import("vetted-math").then]',
    ].join('\n')
    expectSameValue(await runOk(sandbox, code, { modules }), [undefined, 1, true, 'function'], 'the dynamic imports')
  }),

  check('import() gives a native promise even after the program replaced the global Promise', async ({ sandbox }) => {
    const code = [
      'const Native = Promise',
      'globalThis.Promise = function Fake() { throw new Error("the fake Promise ran") }',
      "const pending = import('vetted-math')",
      'const native = pending instanceof Native',
      'const m = await pending',
      'return [native, m.add(2, 2)]',
    ].join('\n')
    expectSameValue(await runOk(sandbox, code, { modules }), [true, 4], 'import() after Promise was replaced')
  }),

  check('re-exports: export * and export { x as y } from', async ({ sandbox }) => {
    const code = "import * as h from './helpers.js'\nreturn [h.four, h.plus(2, 3), h.double(7), h.PI2, Object.keys(h).sort()]"
    expectSameValue(
      await runOk(sandbox, code, { modules }),
      [4, 5, 14, 6.28, ['PI2', 'add', 'double', 'four', 'plus']],
      'the re-exported names',
    )
  }),

  check('a namespace with re-exports can be the result: its properties are data once imported', async ({ sandbox }) => {
    const data: ModuleMap = {
      settings: "export const region = 'eu'\nexport const limits = [1, 2]",
      config: "export * from 'settings'\nexport { region as zone } from 'settings'\nexport const name = 'app'",
    }
    expectSameValue(
      await runOk(sandbox, "return await import('config')", { modules: data }),
      { name: 'app', region: 'eu', limits: [1, 2], zone: 'eu' },
      'the namespace as a result',
    )
  }),

  check('import cycles: two modules that import each other both work', async ({ sandbox }) => {
    const code = "import { a } from 'cycle-a'\nimport { b } from 'cycle-b'\nreturn [a(3), b(2)]"
    expectSameValue(await runOk(sandbox, code, { modules }), ['abab', 'bab'], 'the cycle')
  }),

  check('a module imported many times, statically and dynamically, evaluates once', async ({ sandbox }) => {
    const code = [
      "import { evaluations } from 'counted'",
      "import * as again from 'counted'",
      "const third = await import('counted')",
      'return [evaluations, again.evaluations, third.evaluations, globalThis.__evaluations]',
    ].join('\n')
    expectSameValue(await runOk(sandbox, code, { modules }), [1, 1, 1, 1], 'evaluation counts')
  }),

  check('a missing specifier: static import ends RUNTIME_ERROR naming it before anything runs; import() rejects', async ({ sandbox }) => {
    const { result } = await timedRun(sandbox, "console.log('ran')\nimport { x } from 'left-pad'\nreturn x", { modules })
    const error = expectError(result, 'RUNTIME_ERROR')
    if (!error.message.includes('"left-pad"')) throw new Error(`the error should name the specifier, got ${summarize(error)}`)
    if (error.line !== 2) throw new Error(`the error should be on line 2 (the import), got ${summarize(error)}`)
    if (result.logs.length !== 0) throw new Error(`nothing should run before a failed link, got logs ${summarize(result.logs)}`)
    const code = "try { await import('./missing.js') } catch (e) { return [e instanceof Error, e.message.includes('./missing.js')] }"
    expectSameValue(await runOk(sandbox, code, { modules }), [true, true], 'the rejected import()')
  }),

  check('specifiers match keys exactly: no resolution of relative paths, extensions or node: built-ins', async ({ sandbox }) => {
    const code = [
      'const out = []',
      "for (const s of ['./helpers', 'helpers.js', './helpers.js?x', 'node:fs', 'fs']) {",
      '  try { await import(s); out.push(s + " loaded") } catch (e) { out.push(s + " refused") }',
      '}',
      'return out',
    ].join('\n')
    expectSameValue(
      await runOk(sandbox, code, { modules }),
      ['./helpers refused', 'helpers.js refused', './helpers.js?x refused', 'node:fs refused', 'fs refused'],
      'the refused specifiers',
    )
  }),

  check('a TypeScript module (.ts key) has its types stripped', async ({ sandbox }) => {
    const code = "import { norm1, origin } from 'typed.ts'\nreturn [norm1({ x: -2, y: 3 }), origin]"
    expectSameValue(await runOk(sandbox, code, { modules }), [5, { x: 0, y: 0 }], 'the TypeScript module')
  }),

  check('a TypeScript program imports modules too, and a lone main function after imports is called', async ({ sandbox }) => {
    const code = "```ts\nimport twice from 'vetted-math'\nasync function main(): Promise<number> {\n  return twice(21)\n}\n```"
    expectSameValue(await runOk(sandbox, code, { modules }), 42, 'the program value')
  }),

  check('an error thrown in a module: RUNTIME_ERROR, the stack names the module, line and column of the program', async ({ sandbox }) => {
    const { result } = await timedRun(sandbox, "import { fail } from 'thrower'\n\nfail()", { modules })
    const error = expectError(result, 'RUNTIME_ERROR')
    if (error.message !== 'thrown in a module') throw new Error(`unexpected message: ${summarize(error)}`)
    if (error.stack !== undefined && !error.stack.includes('thrower:2')) {
      throw new Error(`the stack should name the module and its line (thrower:2), got ${summarize(error.stack)}`)
    }
    if (error.line !== undefined && error.line !== 3) throw new Error(`the program line should be 3, got ${summarize(error)}`)
  }),

  check('a syntax error in an imported module ends SYNTAX_ERROR naming the module', async ({ sandbox }) => {
    const broken: ModuleMap = { broken: 'export const x = (1 +\n' }
    const { result } = await timedRun(sandbox, "import { x } from 'broken'\nreturn x", { modules: broken })
    const error = expectError(result, 'SYNTAX_ERROR')
    if (!error.message.includes('"broken"')) throw new Error(`the error should name the module, got ${summarize(error)}`)
  }),

  check(
    'an infinite loop in a module ends TIMEOUT',
    async ({ sandbox, options }) => {
      const looping: ModuleMap = { spin: 'for (;;) {}\nexport const never = 1' }
      const timeoutMs = 300
      const { result } = await timedRun(
        sandbox,
        "import { never } from 'spin'\nreturn never",
        { modules: looping, timeoutMs },
        timeoutMs + options.timeoutSlackMs + 2_000,
      )
      expectLimitName(expectError(result, 'TIMEOUT'), 'timeoutMs', timeoutMs)
      await expectHealthy(sandbox, 'a module that timed out')
    },
    { timeoutMs: 20_000 },
  ),

  check(
    'a module that allocates too much ends MEMORY_LIMIT',
    async ({ sandbox }) => {
      const hog: ModuleMap = { hog: 'const a = []\nfor (;;) a.push(new Array(1e5).fill(a.length))\nexport default a' }
      const { result } = await timedRun(
        sandbox,
        "const m = await import('hog')\nreturn m.default.length",
        { modules: hog, memoryMb: 32, timeoutMs: 15_000 },
        20_000,
      )
      expectLimitName(expectError(result, 'MEMORY_LIMIT'), 'memoryMb', 32)
      await expectHealthy(sandbox, 'a module that ran out of memory')
    },
    { requires: { memoryLimit: true }, timeoutMs: 30_000 },
  ),

  check('loaders: called once per run on the host, sync or async', async ({ sandbox }) => {
    let calls = 0
    const loaded: ModuleMap = {
      sync: () => {
        calls++
        return 'export default "from a sync loader"'
      },
      later: async () => {
        calls++
        await new Promise((resolve) => setTimeout(resolve, 5))
        return 'export const value = "from an async loader"'
      },
    }
    const code = "import s from 'sync'\nimport { value } from 'later'\nconst again = await import('sync')\nreturn [s, value, again.default]"
    expectSameValue(
      await runOk(sandbox, code, { modules: loaded }),
      ['from a sync loader', 'from an async loader', 'from a sync loader'],
      'the loaded modules',
    )
    if (calls !== 2) throw new Error(`each loader should be called once, got ${calls} calls`)
  }),

  check('a loader that throws or returns no string ends the run RUNTIME_ERROR naming the module', async ({ sandbox }) => {
    for (const loader of [
      () => {
        throw new Error('registry down')
      },
      () => Promise.reject(new Error('registry down')),
      () => 42 as unknown as string,
    ]) {
      const { result } = await timedRun(sandbox, "import x from 'remote'\nreturn x", { modules: { remote: loader } })
      const error = expectError(result, 'RUNTIME_ERROR')
      if (!error.message.includes('"remote"')) throw new Error(`the error should name the module, got ${summarize(error)}`)
    }
  }),

  check('every run gets fresh modules: a run that mutates a module does not change the next run', async ({ sandbox }) => {
    const code = "import { box, bump } from 'state'\nbump(); bump()\nbox.extra = 'mutated'\nreturn [box.value, Object.keys(box)]"
    expectSameValue(await runOk(sandbox, code, { modules }), [2, ['value', 'extra']], 'the first run')
    expectSameValue(await runOk(sandbox, code, { modules }), [2, ['value', 'extra']], 'the second run')
  }),

  check('modules see globals but not the program’s variables, and no host object', async ({ sandbox }) => {
    const probe: ModuleMap = {
      probe: [
        'export function look() {',
        '  return [typeof secret, typeof require, typeof process, typeof globalThis.fetch, typeof module, typeof exports.constructor]',
        '}',
      ].join('\n'),
    }
    const code = "const secret = 'program-only'\nimport { look } from 'probe'\nreturn look()"
    expectSameValue(
      await runOk(sandbox, code, { modules: probe }),
      ['undefined', 'function', 'undefined', 'undefined', 'undefined', 'function'],
      'what a module sees',
    )
  }),

  check('sandbox defaults give modules to every run; a run’s own map replaces them', async ({ newSandbox }) => {
    const sandbox = await newSandbox({ modules: { greeting: 'export default "hello"' } })
    expectSameValue(await runOk(sandbox, "import g from 'greeting'\nreturn g"), 'hello', 'the default module')
    const own = await timedRun(sandbox, "import g from 'greeting'\nreturn g", { modules: { other: 'export default 1' } })
    expectError(own.result, 'RUNTIME_ERROR')
  }),

  check('without the modules option, import is a SYNTAX_ERROR as before', async ({ sandbox }) => {
    const { result } = await timedRun(sandbox, "import x from 'vetted-math'\nreturn x")
    expectError(result, 'SYNTAX_ERROR')
  }),

  check('a bad modules option is INVALID_OPTIONS naming the key', async ({ sandbox }) => {
    await expectHostError(
      () => sandbox.run('1', { modules: { bad: 42 } as unknown as ModuleMap }),
      'INVALID_OPTIONS',
      'a number as a module',
    )
    await expectHostError(() => sandbox.run('1', { modules: ['x'] as unknown as ModuleMap }), 'INVALID_OPTIONS', 'an array as the map')
    let message = ''
    try {
      await sandbox.run('1', { modules: { 'lib.js': null } as unknown as ModuleMap })
    } catch (error) {
      message = (error as Error).message
    }
    if (!message.includes('lib.js')) throw new Error(`the error should name the key, got ${JSON.stringify(message)}`)
  }),

  check(
    'sessions refuse the modules option (INVALID_OPTIONS)',
    async ({ sandbox }) => {
      await expectHostError(() => sandbox.createSession({ modules } as never), 'INVALID_OPTIONS', 'modules in session options')
      const session = await sandbox.createSession()
      try {
        await expectHostError(() => session.run('1', { modules } as never), 'INVALID_OPTIONS', 'modules in session run options')
      } finally {
        await session.dispose()
      }
    },
    { requires: { sessions: true } },
  ),

  check('a paused run binds its modules: a resume with the same ones replays, with other ones is refused', async (ctx) => {
    const sandbox = await durableSandbox(ctx)
    const { tools } = countedTools()
    const code = "import twice from 'vetted-math'\nconst answer = await ask.human('n?')\nreturn twice(answer)"
    const paused = expectPaused((await timedRun(sandbox, code, { tools, modules })).result, 'the first run')
    const changed: ModuleMap = { ...modules, 'vetted-math': 'export default function twice(x) { return x * 3 }' }
    await expectHostError(
      () => sandbox.resume(paused.continuation, { answer: 7, tools, modules: changed }),
      'INVALID_CONTINUATION',
      'a resume with a changed module',
    )
    await expectHostError(
      () => sandbox.resume(paused.continuation, { answer: 7, tools }),
      'INVALID_CONTINUATION',
      'a resume without modules',
    )
    expectSameValue(expectOk(await sandbox.resume(paused.continuation, { answer: 7, tools, modules })), 14, 'the resumed value')
  }),

  check('modules count against maxCodeBytes together: too large ends CODE_LIMIT', async ({ sandbox }) => {
    const big: ModuleMap = { big: 'export const s = "' + 'x'.repeat(4096) + '"' }
    const { result } = await timedRun(sandbox, "import { s } from 'big'\nreturn s.length", { modules: big, maxCodeBytes: 2048 })
    expectLimitName(expectError(result, 'CODE_LIMIT'), 'maxCodeBytes', 2048)
  }),

  check('the same module map gives the same result: a small library end to end', async ({ sandbox }) => {
    const code = [
      "import * as h from './helpers.js'",
      "const { a } = await import('cycle-a')",
      "const { norm1 } = await import('typed.ts')",
      'return { four: h.four, cycle: a(4), norm: norm1({ x: 3, y: -4 }), sum: [1, 2, 3].reduce(h.add, 0) }',
    ].join('\n')
    const value = expectOk((await timedRun(sandbox, code, { modules })).result)
    expectSameValue(value, { four: 4, cycle: 'ababa', norm: 7, sum: 6 }, 'the library result')
  }),
]
