/** Contenders whose server-load figures would only repeat their pooled mode's. */
const NOPOOL = ['cordon-quickjs-nopool', 'cordon-ivm-nopool', 'cordon-subprocess-nopool']

// How much to measure in each mode. --quick only proves that every contender works and the
// report is written (CI); the full mode gives the numbers we publish.
const QUICK = {
  mode: 'quick',
  latency: {
    W1: { warmup: 3, rounds: 8, perRound: 4 },
    // W1b: W1's functions in bursts of perRound runs with no pause, pauseMs before each burst (latency-runner.mjs).
    W1b: { uses: 'W1', backToBack: true, warmup: 0, rounds: 2, perRound: 4, pauseMs: 10 },
    W2: { warmup: 0, rounds: 1, perRound: 1 },
    W3: { warmup: 0, rounds: 1, perRound: 1 },
    W4: { warmup: 0, rounds: 1, perRound: 1 },
    W5: { warmup: 0, rounds: 1, perRound: 1 },
  },
  // W4's payload: 300 records instead of 8,000 (cordon's wire encoding takes seconds per MB today).
  dataItems: 300,
  // A contender stops taking samples of a workload once it has used this much time (and has minSamples).
  budgetMs: 400,
  minSamples: 2,
  throughput: { warmup: 1, rounds: 1, batch: 8, budgetMs: 800 },
  // A fresh Node process per sample (cold-runner.mjs): one each, a few seconds in all.
  cold: { warmup: 0, rounds: 1 },
  rss: { runs: 60, budgetMs: 300, warmup: 3, contenders: ['cordon-quickjs', 'cordon-ivm', 'cordon-subprocess'] },
  // In-thread QuickJS holds the host for seconds per sample (that is what the table shows).
  preemption: { samples: 1, skip: ['cordon-quickjs-inline', 'cordon-quickjs-nopool', 'cordon-ivm-nopool', 'cordon-subprocess-nopool'] },
  serverLoad: { rounds: 1, batch: 16, idleSamples: 2, pacedRuns: 10, skip: NOPOOL },
}

const FULL = {
  mode: 'full',
  latency: {
    W1: { warmup: 30, rounds: 40, perRound: 10 },
    W1b: { uses: 'W1', backToBack: true, warmup: 10, rounds: 20, perRound: 10, pauseMs: 250 },
    W2: { warmup: 3, rounds: 15, perRound: 2 },
    W3: { warmup: 2, rounds: 12, perRound: 2 },
    W4: { warmup: 2, rounds: 12, perRound: 2 },
    W5: { warmup: 2, rounds: 12, perRound: 2 },
  },
  dataItems: 8000,
  budgetMs: 10_000,
  minSamples: 5,
  throughput: { warmup: 16, rounds: 8, batch: 64, budgetMs: 8_000 },
  cold: { warmup: 1, rounds: 10 },
  rss: { runs: 3000, budgetMs: 60_000, warmup: 3000, warmupBudgetMs: 30_000, contenders: undefined },
  preemption: { samples: 3, skip: ['cordon-quickjs-nopool', 'cordon-ivm-nopool', 'cordon-subprocess-nopool'] },
  serverLoad: { rounds: 5, batch: 64, idleSamples: 10, pacedRuns: 200, skip: NOPOOL },
}

export function makePlan(quick) {
  return quick ? QUICK : FULL
}
