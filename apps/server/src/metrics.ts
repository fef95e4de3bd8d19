import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/** What the server tells Prometheus (`GET /metrics`), through prom-client. */
export interface ServerMetrics {
  registry: Registry
  runs: Counter<'backend' | 'code'>
  runSeconds: Histogram<'backend'>
  runsInFlight: Gauge
  connections: Gauge
  refusals: Counter<'reason'>
}

export function createMetrics(): ServerMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'cordon_server_' })
  return {
    registry,
    runs: new Counter({
      name: 'cordon_server_runs_total',
      help: 'Runs ended, by the backend that ran them and their result code (OK for a value).',
      labelNames: ['backend', 'code'],
      registers: [registry],
    }),
    runSeconds: new Histogram({
      name: 'cordon_server_run_duration_seconds',
      help: 'Time from a run order to its result, tool calls included.',
      labelNames: ['backend'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    runsInFlight: new Gauge({ name: 'cordon_server_runs_in_flight', help: 'Runs started and not yet ended.', registers: [registry] }),
    connections: new Gauge({
      name: 'cordon_server_connections',
      help: 'Open connections: with a run in flight, a session, or kept by their caller for its next run.',
      registers: [registry],
    }),
    refusals: new Counter({
      name: 'cordon_server_refusals_total',
      help: 'Connections refused before anything ran: busy (at maxRuns), draining, token.',
      labelNames: ['reason'],
      registers: [registry],
    }),
  }
}
