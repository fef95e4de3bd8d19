// Plain Node children by hand, no lockdown: one spawned per run (what cordon's subprocess warm
// pool saves), and one warm child reused for every run (the IPC floor for W2..W5).
import { ECHO_SUM, FIB_N, FIB_RESULT, GUEST_SOURCES, bigDataJson, checkBigData, checkLogLines, expectEqual } from '../workloads.mjs'
import { NodeChild } from './raw-node-channel.mjs'

const PROGRAMS = {
  W1: 'return 1 + 2',
  W2: GUEST_SOURCES.echoLoop((arg) => `echo(${arg})`),
  W3: `${GUEST_SOURCES.fib}\nreturn fib(${FIB_N})`,
  // The object crosses as JSON text both ways, parsed on each side.
  W4: 'return data',
  W5: `${GUEST_SOURCES.logLoop('log')}\nreturn 0`,
}

/** Workload functions over `withChild(body)`, which provides a child for one run. */
function childWorkloads(withChild) {
  return {
    W1: withChild(async (child) => expectEqual('W1', (await child.run(PROGRAMS.W1)).value, 3)),
    W2: withChild(async (child) => expectEqual('W2', (await child.run(PROGRAMS.W2)).value, ECHO_SUM)),
    W3: withChild(async (child) => expectEqual('W3', (await child.run(PROGRAMS.W3)).value, FIB_RESULT)),
    W4: withChild(async (child) => checkBigData((await child.run(PROGRAMS.W4, bigDataJson())).value)),
    W5: withChild(async (child) => checkLogLines((await child.run(PROGRAMS.W5)).logs)),
  }
}

const SPAWN_ONLY_W1 = 'W1 only: the cost of a child per run is the point; the work itself is as the warm child'

export const rawNodeContenders = [
  {
    id: 'raw-node-spawn',
    load: async () => {
      // Spawn, run, and wait for the child to exit: what a fresh run needs and its clean-up.
      const perRun = (body) => async () => {
        const child = new NodeChild()
        try {
          await body(child)
        } finally {
          await child.close()
        }
      }
      const { W1 } = childWorkloads(perRun)
      return {
        id: 'raw-node-spawn',
        name: 'raw Node child (spawned per run)',
        engine: 'subprocess',
        W1,
        W2: SPAWN_ONLY_W1,
        W3: SPAWN_ONLY_W1,
        W4: SPAWN_ONLY_W1,
        W5: SPAWN_ONLY_W1,
        W6: true,
        // 8 spawns at once take seconds on a loaded machine.
        skipInQuick: { W6: 'seconds per batch' },
        dispose: async () => {},
      }
    },
  },
  {
    id: 'raw-node-warm',
    load: async () => {
      const child = new NodeChild()
      const reuse = (body) => () => body(child)
      return {
        id: 'raw-node-warm',
        name: 'raw Node child (warm, reused, stdio JSON)',
        engine: 'subprocess',
        note: 'one long-lived child: no fresh state per run, one IPC round trip per tool call',
        ...childWorkloads(reuse),
        W6: true,
        dispose: () => child.close(),
      }
    },
  },
]
