// node:vm, a new context per run: not a security boundary (the guest can reach the host through
// any host object it is given), so it is the unsafe floor — what a fresh realm costs at least.
import vm from 'node:vm'
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

const freshRun = (code, globals = {}) => vm.runInContext(code, vm.createContext(globals))

export const nodeVmContenders = [
  {
    id: 'node-vm',
    load: async () => ({
      id: 'node-vm',
      name: 'node:vm new context per run (unsafe floor)',
      engine: 'node-vm',
      note: 'no isolation: a floor, not a sandbox',
      W1: async () => expectEqual('W1', freshRun('(function () { return 1 + 2 })()'), 3),
      W2: async () => {
        const code = `(async () => { ${GUEST_SOURCES.echoLoop((arg) => `echo(${arg})`)} })()`
        expectEqual('W2', await freshRun(code, { echo: async (i) => i }), ECHO_SUM)
      },
      W3: async () => expectEqual('W3', freshRun(`${GUEST_SOURCES.fib} fib(${FIB_N})`), FIB_RESULT),
      // A copy each way, as a sandbox must make: guest changes never reach the host.
      W4: {
        structuredClone: async () => checkBigData(structuredClone(freshRun('data', { data: structuredClone(bigData()) }))),
        'JSON text': async () => checkBigData(JSON.parse(freshRun('JSON.stringify(JSON.parse(dataJson))', { dataJson: bigDataJson() }))),
      },
      W5: async () => {
        const lines = []
        freshRun(`const log = (...a) => hostLog(a.join(' ')); ${GUEST_SOURCES.logLoop('log')}`, {
          hostLog: (line) => void lines.push(line),
        })
        checkLogLines(lines)
      },
      W6: true,
      dispose: async () => {},
    }),
  },
]
