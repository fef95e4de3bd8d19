/** Helpers of the fetch group: options that allow the test server, and what a guest's fetch threw. */
import type { FetchOptions, Sandbox } from '@cordon/core'
import type { TestServer } from './http-server.js'
import { runOk } from './run.js'

/** Fetch options that allow the test server and nothing else. */
export function allowServer(server: TestServer, extra: Partial<FetchOptions> = {}): FetchOptions {
  return { allow: [server.origin], allowPrivateAddresses: true, ...extra }
}

/**
 * Runs `body` (guest statements that await a fetch) and returns what it threw as
 * `[kind, message]`, kind `TypeError` for a TypeError; `['none', '']` if nothing was thrown.
 */
export async function guestRefusal(sandbox: Sandbox, body: string, fetch: FetchOptions, timeoutMs = 10_000): Promise<[string, string]> {
  const code = `try {\n${body}\n} catch (e) { return [e instanceof TypeError ? 'TypeError' : String(e && e.name), String(e && e.message)] }\nreturn ['none', '']`
  return (await runOk(sandbox, code, { fetch, timeoutMs })) as [string, string]
}

/** Expects a TypeError whose message contains `part`. */
export function expectRefused(caught: [string, string], part: string, what: string): void {
  if (caught[0] !== 'TypeError' || !caught[1].includes(part)) {
    throw new Error(`${what}: expected a TypeError mentioning "${part}", got ${JSON.stringify(caught)}`)
  }
}
