import { describe, expect, it } from 'vitest'
import { ANSI, cordon } from './helpers.js'

describe('cordon doctor', () => {
  it('prints a plain, aligned table when piped: status, probe time, capabilities, reasons, the choice', async () => {
    const r = await cordon(['doctor'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout).not.toMatch(ANSI)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toMatch(/^runtime: Node \d+\.\d+\.\d+ \(.+, with --no-node-snapshot\)$/)
    const header = lines.find((l) => l.startsWith('backend'))!
    expect(header).toMatch(/^backend {2,}status {2,}probe ms {2}capabilities$/)
    for (const name of ['subprocess', 'quickjs', 'ivm']) {
      const row = lines.find((l) => l.startsWith(`${name} `))!
      // Columns line up under the header.
      expect(row.indexOf('available')).toBe(header.indexOf('status'))
      expect(row).toMatch(/available +\d+ {2}(process|wasm|v8-isolate): .*memoryLimit/)
      // Every default backend keeps guest code off the host's thread.
      expect(row).toMatch(/ preemptive/)
      expect(row).not.toContain('can stall the host')
    }
    expect(r.stdout).toContain('ran the probe program with a tool call on quickjs')
    // What each protects and costs, measured here, under its row.
    expect(r.stdout).toContain('protects: a fresh V8 isolate per run, inside a locked-down child process; the host outlives a guest')
    expect(r.stdout).toContain('protects: a V8 isolate per run, inside the host process; an out-of-memory the engine cannot contain')
    expect(r.stdout.match(/ {2}costs: first run \d+(\.\d)? ms, then \d+(\.\d)? ms a run, \d+ µs a tool call\n/g)).toHaveLength(3)
    expect(r.stdout).toMatch(/\nchosen: \w+: /)
  })

  it('--json prints the diagnose() report', async () => {
    const r = await cordon(['doctor', '--json'])
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report.runtime).toMatchObject({ kind: 'node', noNodeSnapshot: true })
    expect(report.candidates.map((c: { name: string }) => c.name)).toEqual(['subprocess', 'quickjs', 'ivm'])
    for (const c of report.candidates) {
      expect(c).toMatchObject({
        available: expect.any(Boolean),
        status: expect.any(String),
        reason: expect.any(String),
        probeMs: expect.any(Number),
        protects: expect.any(String),
        costs: { firstRunMs: expect.any(Number), runMs: expect.any(Number), toolCallUs: expect.any(Number) },
      })
    }
    // With --no-node-snapshot added by the CLI, ivm is judged as `cordon run -b ivm` would run it.
    expect(report.candidates.find((c: { name: string }) => c.name === 'ivm').reason).not.toContain('--no-node-snapshot')
    expect(report.chosen).toBe(report.candidates.find((c: { available: boolean }) => c.available).name)
  })

  it('explains an unusable backend with its reason and fix, in colour when asked', async () => {
    const r = await cordon(['doctor'], { env: { CORDON_CLI_NO_REEXEC: '1', FORCE_COLOR: '1' } })
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(ANSI)
    // eslint-disable-next-line no-control-regex -- ANSI colour codes start with the escape character
    const plain = r.stdout.replace(/\u001b\[\d+m/g, '')
    expect(plain).toMatch(/\nivm +unusable +\d+ /)
    expect(plain).toMatch(/\n +isolated-vm needs .*--no-node-snapshot\n +fix: .*--no-node-snapshot/)
  })

  it('honours CORDON_DISABLE, and refuses a bad CORDON_BACKEND with exit 2', async () => {
    const r = await cordon(['doctor', '--json'], { env: { CORDON_DISABLE: 'subprocess,ivm' } })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report.chosen).toBe('quickjs')
    expect(report.candidates.find((c: { name: string }) => c.name === 'ivm')).toMatchObject({ status: 'disabled' })
    const bad = await cordon(['doctor'], { env: { CORDON_BACKEND: 'nope' } })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('unknown backend "nope"')
  })
})
