// isolated-vm by hand: a new isolate + context per run, tools as a Reference whose result is a
// promise (a Callback cannot return one), logs as a Callback or buffered in the guest.
import { createRequire } from 'node:module'
import { NodeChild } from './raw-node-channel.mjs'
import {
  ECHO_SUM,
  FIB_N,
  FIB_RESULT,
  GUEST_SOURCES,
  bigData,
  bigDataJson,
  checkBigData,
  checkLogLines,
  expectEqual,
} from '../workloads.mjs'

/** The copy of isolated-vm that @cordon/backend-ivm loads on this Node (7, 6 or 5, by ABI). */
export function loadIsolatedVm() {
  const require = createRequire(createRequire(import.meta.url).resolve('@cordon/backend-ivm'))
  const failures = []
  for (const name of ['isolated-vm', 'isolated-vm-6', 'isolated-vm-5']) {
    try {
      return { ivm: require(name), version: require(`${name}/package.json`).version, path: require.resolve(name) }
    } catch (error) {
      failures.push(`${name}: ${String(error.message).split('\n')[0]}`)
    }
  }
  throw new Error(`no isolated-vm loads here (${failures.join('; ')})`)
}

export const rawIvmContenders = [
  {
    id: 'raw-ivm',
    load: async () => {
      const { ivm, version } = loadIsolatedVm()
      const once = (body) => async () => {
        const isolate = new ivm.Isolate({ memoryLimit: 128 })
        try {
          const context = await isolate.createContext()
          return await body(context)
        } finally {
          isolate.dispose()
        }
      }
      return {
        id: 'raw-ivm',
        name: `raw isolated-vm ${version} (new isolate per run)`,
        engine: 'ivm',
        W1: once(async (context) => expectEqual('W1', await context.eval('(function () { return 1 + 2 })()', { copy: true }), 3)),
        W2: once(async (context) => {
          await context.global.set('echo', new ivm.Reference(async (i) => i))
          const call = (arg) => `echo.apply(undefined, [${arg}], { result: { promise: true, copy: true } })`
          const code = `(async () => { ${GUEST_SOURCES.echoLoop(call)} })()`
          expectEqual('W2', await context.eval(code, { promise: true, copy: true }), ECHO_SUM)
        }),
        W3: once(async (context) =>
          expectEqual('W3', await context.eval(`${GUEST_SOURCES.fib} fib(${FIB_N})`, { copy: true }), FIB_RESULT),
        ),
        W4: {
          'structured clone (ExternalCopy)': once(async (context) => {
            await context.global.set('data', new ivm.ExternalCopy(bigData()).copyInto({ release: true }))
            checkBigData(await context.eval('data', { copy: true }))
          }),
          'JSON text': once(async (context) => {
            await context.global.set('dataJson', bigDataJson())
            checkBigData(JSON.parse(await context.eval('JSON.stringify(JSON.parse(dataJson))')))
          }),
        },
        W5: {
          'Callback per line': once(async (context) => {
            const lines = []
            await context.global.set('hostLog', new ivm.Callback((line) => void lines.push(line)))
            await context.eval(`const log = (...a) => hostLog(a.join(' ')); ${GUEST_SOURCES.logLoop('log')}`)
            checkLogLines(lines)
          }),
          'buffered, one string out': once(async (context) => {
            checkLogLines((await context.eval(GUEST_SOURCES.bufferedLogs())).split('\n'))
          }),
        },
        W6: true,
        dispose: async () => {},
      }
    },
  },
  {
    // The floor for engine children: isolated-vm in a plain warm child, tools over stdio JSON.
    id: 'raw-ivm-child',
    load: async () => {
      const { version, path } = loadIsolatedVm()
      const child = new NodeChild(undefined, ['--no-node-snapshot', CHILD_SCRIPT, path])
      const W2_CALL = (arg) => `echo.apply(undefined, [${arg}], { result: { promise: true, copy: true } })`
      return {
        id: 'raw-ivm-child',
        name: `raw isolated-vm ${version} in a warm child (new isolate per run, stdio JSON)`,
        engine: 'subprocess',
        note: 'no lockdown, no limits: the hops of an isolate in a child and nothing else',
        W1: async () => expectEqual('W1', (await child.run('return 1 + 2')).value, 3),
        W2: async () => expectEqual('W2', (await child.run(GUEST_SOURCES.echoLoop(W2_CALL))).value, ECHO_SUM),
        W3: async () => expectEqual('W3', (await child.run(`${GUEST_SOURCES.fib} return fib(${FIB_N})`)).value, FIB_RESULT),
        // W4 and W5 by the raw best method in an isolate: JSON text, and lines buffered in the guest.
        W4: async () => checkBigData((await child.run('return JSON.stringify(JSON.parse(dataJson))', bigDataJson(), true)).value),
        W5: async () => checkLogLines((await child.run(GUEST_SOURCES.bufferedLogs((lines) => `return ${lines}`))).value.split('\n')),
        dispose: () => child.close(),
      }
    },
  },
]

const CHILD_SCRIPT = new URL('./raw-ivm-child.cjs', import.meta.url).pathname
