import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cordon } from './helpers.js'

/** A loopback server that answers every request with what reached it. */
const seen: { path: string; headers: IncomingHttpHeaders }[] = []
const server = createServer((request, response) => {
  seen.push({ path: request.url ?? '', headers: request.headers })
  response.setHeader('content-type', 'application/json')
  response.end(JSON.stringify({ path: request.url, authorized: request.headers.authorization === 'Bearer s3cret-value' }))
})
let origin = ''
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const program = () => `const r = await fetch('${origin}/items', { headers: { Authorization: 'Bearer API_KEY' } })
return [r.status, await r.json(), typeof API_KEY]`

describe('cordon run --fetch-allow', () => {
  it('gives the guest a fetch to the allowed origin; --fetch-secret sends the value of an environment variable, never seen by the guest', async () => {
    const r = await cordon(
      [
        'run',
        '--json',
        '-b',
        'quickjs',
        '--fetch-allow',
        origin,
        '--fetch-allow-private',
        '--fetch-secret',
        'API_KEY=TEST_TOKEN@127.0.0.1',
        '-e',
        program(),
      ],
      { env: { TEST_TOKEN: 's3cret-value' } },
    )
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout) as { ok: boolean; value: unknown }
    expect(doc.value).toEqual([200, { path: '/items', authorized: true }, 'undefined'])
    expect(r.stdout + r.stderr).not.toContain('s3cret-value')
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer s3cret-value')
  })

  it('without --fetch-allow the guest has no fetch', async () => {
    const r = await cordon(['run', '--json', '-b', 'quickjs', '-e', 'typeof fetch'])
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, value: 'undefined' })
  })

  it('a loopback origin is refused without --fetch-allow-private, inside the guest', async () => {
    const r = await cordon([
      'run',
      '--json',
      '-b',
      'quickjs',
      '--fetch-allow',
      origin,
      '-e',
      `await fetch('${origin}/x').then(() => 'reached', (e) => e.name)`,
    ])
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, value: 'TypeError' })
  })

  it('usage errors: an unset secret variable, a malformed --fetch-secret, --fetch-secret without --fetch-allow, a bad origin', async () => {
    const unset = await cordon([
      'run',
      '-b',
      'quickjs',
      '--fetch-allow',
      origin,
      '--fetch-secret',
      'API_KEY=NOT_SET_ANYWHERE@127.0.0.1',
      '-e',
      '1',
    ])
    expect(unset.code).toBe(2)
    expect(unset.stderr).toContain('NOT_SET_ANYWHERE is not set')
    const malformed = await cordon(['run', '-b', 'quickjs', '--fetch-allow', origin, '--fetch-secret', 'API_KEY', '-e', '1'])
    expect(malformed.code).toBe(2)
    expect(malformed.stderr).toContain('NAME=ENV_VAR@host')
    const alone = await cordon(['run', '-b', 'quickjs', '--fetch-allow-private', '-e', '1'])
    expect(alone.code).toBe(2)
    expect(alone.stderr).toContain('need --fetch-allow')
    const badOrigin = await cordon(['run', '-b', 'quickjs', '--fetch-allow', 'file:///etc', '-e', '1'])
    expect(badOrigin.code).toBe(2)
    expect(badOrigin.stderr).toContain('INVALID_OPTIONS')
  })
})
