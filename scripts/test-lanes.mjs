// Runs test jobs in two lanes: the `parallel` jobs first, `slots` at a time (longest expected
// first, so the last ones to finish are short), then the `quiet` jobs one by one with nothing
// else running — they measure the host's responsiveness in milliseconds. Each job's output is
// kept and printed whole when it ends, so parallel jobs never interleave their lines.
import { spawn } from 'node:child_process'

/**
 * @typedef {{ name: string, command: string, cwd: string, lane: 'parallel' | 'quiet', costS?: number,
 *   after?: string[], env?: Record<string, string> }} Job
 * @typedef {{ name: string, lane: string, ok: boolean, seconds: number, skipped?: string }} JobOutcome
 */

/** @param {Job[]} jobs @param {{ slots: number }} options @returns {Promise<JobOutcome[]>} */
export async function runLanes(jobs, { slots }) {
  const outcomes = new Map()
  const byCost = (a, b) => (b.costS ?? 0) - (a.costS ?? 0)
  await runPool(jobs.filter((job) => job.lane === 'parallel').sort(byCost), slots, outcomes)
  await runPool(jobs.filter((job) => job.lane === 'quiet').sort(byCost), 1, outcomes)
  return jobs.map((job) => outcomes.get(job.name))
}

async function runPool(queue, slots, outcomes) {
  const waiting = [...queue]
  const running = new Set()
  // A job whose prerequisites have not all ended waits; one whose prerequisite failed is skipped.
  const ready = () =>
    waiting.findIndex((job) => (job.after ?? []).every((name) => outcomes.has(name) || !queue.some((other) => other.name === name)))
  await new Promise((resolve) => {
    const pump = () => {
      while (running.size < slots) {
        const index = ready()
        if (index < 0) break
        const [job] = waiting.splice(index, 1)
        const failedBefore = (job.after ?? []).find((name) => outcomes.get(name)?.ok === false)
        if (failedBefore !== undefined) {
          outcomes.set(job.name, { name: job.name, lane: job.lane, ok: false, seconds: 0, skipped: `${failedBefore} failed` })
          console.log(`\n━━ ${job.name}: not run, ${failedBefore} failed`)
          continue
        }
        const started = runJob(job).then((outcome) => {
          outcomes.set(job.name, outcome)
          running.delete(started)
          pump()
        })
        running.add(started)
      }
      if (running.size === 0 && waiting.length === 0) resolve()
    }
    pump()
  })
}

/** @param {Job} job @returns {Promise<JobOutcome>} */
function runJob(job) {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(job.command, { cwd: job.cwd, shell: true, env: { ...process.env, ...job.env }, stdio: ['ignore', 'pipe', 'pipe'] })
    const output = []
    child.stdout.on('data', (chunk) => output.push(chunk))
    child.stderr.on('data', (chunk) => output.push(chunk))
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000
      const ok = code === 0
      console.log(`\n━━ ${job.name} (${job.lane}): ${ok ? 'ok' : `failed (${code ?? signal})`} in ${seconds.toFixed(1)} s — ${job.command}`)
      process.stdout.write(Buffer.concat(output))
      resolve({ name: job.name, lane: job.lane, ok, seconds })
    })
  })
}
