import { describe, expect, it } from 'vitest'
import { connect, DEMO_UPSTREAM, descendants, isAlive, runJavaScript, waitForExit, writeConfig } from './helpers.js'

// These servers choose their backend themselves (no "backend" in the config): on Node with
// child processes allowed that is the subprocess backend, whose warm pool of children must
// go away with the server too.
const AUTO_CONFIG = { mcpServers: { demo: DEMO_UPSTREAM } }

async function upstreamPid(run: ReturnType<typeof runJavaScript>): Promise<number> {
  const result = await run
  expect(result.isError).toBeFalsy()
  return Number(result.texts[0])
}

describe('lifecycle', () => {
  it('serves with the auto-selected backend, and exits with every child when the client closes stdin', async () => {
    const server = await connect(writeConfig(AUTO_CONFIG))
    expect(server.stderr()).toMatch(/cordon-mcp: ready \(version [^,]+, backend (subprocess|quickjs|ivm), 7 tools from 1 upstream servers/)
    const upstream = await upstreamPid(runJavaScript(server.client, 'await demo.pid({})'))
    const children = descendants(server.pid)
    expect(children).toContain(upstream)

    await server.client.close()
    await waitForExit(server.pid)
    for (const pid of children) await waitForExit(pid)
  })

  it('exits with every child on SIGTERM, even with a call in flight', async () => {
    const server = await connect(writeConfig(AUTO_CONFIG))
    const upstream = await upstreamPid(runJavaScript(server.client, 'await demo.pid({})'))
    const children = descendants(server.pid)
    expect(children).toContain(upstream)

    const inFlight = runJavaScript(server.client, 'await demo.slow({ ms: 60000 })')
    process.kill(server.pid, 'SIGTERM')
    await expect(inFlight).rejects.toThrow()
    await waitForExit(server.pid)
    for (const pid of children) await waitForExit(pid)
    await server.client.close()
  })

  it('keeps serving when an upstream dies; calls to it fail in the guest', async () => {
    const server = await connect(writeConfig({ ...AUTO_CONFIG, backend: 'quickjs' }))
    try {
      const upstream = await upstreamPid(runJavaScript(server.client, 'await demo.pid({})'))
      process.kill(upstream, 'SIGKILL')
      await waitForExit(upstream)
      expect(isAlive(server.pid)).toBe(true)

      const call = await runJavaScript(
        server.client,
        'try { await demo.pid({}); return "answered" } catch (error) { return "failed: " + error.message }',
      )
      expect(JSON.parse(call.texts[0]!)).toMatch(/^failed: /)
      const { tools } = await server.client.listTools()
      expect(tools.find((tool) => tool.name === 'run_javascript')?.description).toContain(
        '- demo: unavailable right now, calls to its tools throw (its process exited; restart cordon-mcp to start it again)',
      )
      const plain = await runJavaScript(server.client, '[1, 2, 3].reduce((a, b) => a + b)')
      expect(plain.texts[0]).toBe('6')
    } finally {
      await server.client.close()
    }
  })
})
