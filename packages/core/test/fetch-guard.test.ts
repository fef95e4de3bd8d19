/** The fetch guard's pure parts: the address classifier, allow-entry and URL matching, secrets, the request check. */
import { describe, expect, it } from 'vitest'
import { addressRefusal, classifyAddress } from '../src/fetch/address-class.js'
import { resolveFetchPolicy } from '../src/fetch/fetch-options.js'
import { FetchRefusal } from '../src/fetch/fetch-refusal.js'
import { readGuestRequest } from '../src/fetch/request-shape.js'
import { applySecrets, redactBytes, redactText } from '../src/fetch/secrets.js'
import { checkUrl } from '../src/fetch/check-url.js'
import { hostOf, originOf } from '../src/fetch/url-policy.js'
import { isSandboxError } from '../src/index.js'

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.215.14', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'private'],
    ['127.255.255.254', 'private'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.1.1', 'private'],
    ['::1', 'private'],
    ['[::1]', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'private'],
    ['fe80::1%eth0', 'private'],
    ['::ffff:127.0.0.1', 'private'],
    ['::ffff:7f00:1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'private'],
    ['2002:7f00:1::', 'private'],
    ['2130706433', 'private'],
    ['0x7f.1', 'private'],
    ['0177.0.0.1', 'private'],
    ['0.0.0.0', 'forbidden'],
    ['::', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['ff02::1', 'forbidden'],
    ['169.254.169.254', 'forbidden'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)?.kind).toBe(kind)
  })

  it('is undefined for host names', () => {
    expect(classifyAddress('example.com')).toBeUndefined()
    expect(classifyAddress('127.0.0.1.nip.io')).toBeUndefined()
  })

  it('lets private addresses through only with the opt-in, forbidden ones never', () => {
    expect(addressRefusal('127.0.0.1', false)).toMatch(/loopback/)
    expect(addressRefusal('127.0.0.1', true)).toBeUndefined()
    expect(addressRefusal('169.254.169.254', true)).toMatch(/metadata/)
    expect(addressRefusal('0.0.0.0', true)).toMatch(/unspecified/)
    expect(addressRefusal('8.8.8.8', false)).toBeUndefined()
  })
})

describe('allow entries and URLs', () => {
  it('reads bare http(s) origins in canonical form', () => {
    expect(originOf('https://API.Example.com')).toBe('https://api.example.com')
    expect(originOf('https://api.example.com/')).toBe('https://api.example.com')
    expect(originOf('https://api.example.com:443')).toBe('https://api.example.com')
    expect(originOf('https://api.example.com.:8443')).toBe('https://api.example.com:8443')
    expect(originOf('http://2130706433:80')).toBe('http://127.0.0.1')
    expect(originOf('http://[::1]:8080')).toBe('http://[::1]:8080')
    for (const bad of [
      'api.example.com',
      'https://api.example.com/v1',
      'https://u:p@a.com',
      'ftp://a.com',
      'https://*.a.com',
      'https://a.com?x',
      'https://a.com#x',
      'file:///etc',
      'data:,x',
    ]) {
      expect(originOf(bad), bad).toBeUndefined()
    }
  })

  it('reads secret hosts', () => {
    expect(hostOf('API.example.com.')).toBe('api.example.com')
    expect(hostOf('[::1]')).toBe('[::1]')
    for (const bad of ['a.com:443', 'https://a.com', 'a.com/x', 'u@a.com', '']) expect(hostOf(bad), bad).toBeUndefined()
  })

  it('matches a URL by its whole origin, every spelling of one host alike', () => {
    const origins = new Set(['https://api.example.com', 'http://127.0.0.1:8080'])
    expect(checkUrl('https://api.example.com/v1/x?y=1', origins)).toMatchObject({ ok: true, literal: false })
    expect(checkUrl('https://API.EXAMPLE.COM./v1', origins)).toMatchObject({ ok: true })
    expect(checkUrl('http://2130706433:8080/', origins)).toMatchObject({ ok: true, literal: true })
    expect(checkUrl('http://0x7f.1:8080/', origins)).toMatchObject({ ok: true, literal: true })
    for (const bad of [
      'http://api.example.com/',
      'https://api.example.com:444/',
      'https://evil.com/https://api.example.com',
      'https://api.example.com.evil.com/',
      'http://127.0.0.1:8081/',
    ]) {
      expect(checkUrl(bad, origins), bad).toMatchObject({ ok: false })
    }
    expect(checkUrl('https://user@api.example.com/', origins)).toMatchObject({ ok: false, reason: expect.stringMatching(/credentials/) })
    expect(checkUrl('file:///etc/passwd', origins)).toMatchObject({ ok: false, reason: expect.stringMatching(/scheme/) })
  })

  it('throws INVALID_OPTIONS for bad options, naming the field', () => {
    const bad = (fetch: unknown, field: RegExp) => {
      try {
        resolveFetchPolicy(fetch, 'run options')
      } catch (error) {
        expect(isSandboxError(error, 'INVALID_OPTIONS')).toBe(true)
        expect((error as Error).message).toMatch(field)
        return
      }
      throw new Error(`accepted ${JSON.stringify(fetch)}`)
    }
    bad({ allow: ['https://a.com'], secrets: { KEY: { value: 'v', hosts: ['b.com'] } } }, /not the host of any allow entry/)
    bad({ allow: ['https://a.com'], secrets: { KEY: { value: 'v' } } }, /hosts must be a non-empty array/)
    bad({ allow: ['https://a.com/x'] }, /allow/)
    bad({ allow: ['https://a.com'], maxRedirects: 21 }, /maxRedirects/)
    bad({ allow: ['https://a.com'], lookup: 'dns' }, /lookup/)
    expect(resolveFetchPolicy(undefined, 'run options')).toBeUndefined()
    const policy = resolveFetchPolicy({ allow: ['https://a.com'] }, 'run options')!
    expect([policy.maxRequests, policy.maxRedirects, policy.allowPrivateAddresses]).toEqual([20, 5, false])
  })
})

describe('secrets', () => {
  const secrets = resolveFetchPolicy(
    {
      allow: ['https://api.example.com', 'https://other.example.com'],
      secrets: { API_KEY: { value: 'sk-123456', hosts: ['api.example.com'] } },
    },
    'test',
  )!.secrets

  it('substitutes whole names for bound hosts only', () => {
    expect(applySecrets([['authorization', 'Bearer API_KEY']], 'api.example.com', secrets)).toEqual({
      ok: true,
      headers: [['authorization', 'Bearer sk-123456']],
    })
    expect(applySecrets([['x', 'MY_API_KEY API_KEYS']], 'api.example.com', secrets)).toEqual({
      ok: true,
      headers: [['x', 'MY_API_KEY API_KEYS']],
    })
    expect(applySecrets([['authorization', 'Bearer API_KEY']], 'other.example.com', secrets)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/API_KEY.*not bound/),
    })
  })

  it('redacts values in text and bytes', () => {
    expect(redactText('a sk-123456 b sk-123456', secrets)).toBe('a API_KEY b API_KEY')
    const bytes = new TextEncoder().encode('{"k":"sk-123456"}')
    expect(new TextDecoder().decode(redactBytes(bytes, secrets))).toBe('{"k":"API_KEY"}')
  })
})

describe('readGuestRequest (what a compromised engine could send)', () => {
  const base = { url: 'https://api.example.com/', method: 'GET', headers: [], redirect: 'follow' }
  it('refuses header injection, host-owned headers, bad methods and bodies', () => {
    const refused: unknown[] = [
      { ...base, headers: [['x-a', 'v\r\nInjected: 1']] },
      { ...base, headers: [['x-a', 'v\nb']] },
      { ...base, headers: [['x-a', 'v\0']] },
      { ...base, headers: [['x-a\r\nInjected', 'v']] },
      { ...base, headers: [['host', 'internal']] },
      { ...base, headers: [['Transfer-Encoding', 'chunked']] },
      { ...base, headers: [['proxy-anything', 'x']] },
      { ...base, headers: [['x-a']] },
      { ...base, headers: 'x-a: 1' },
      { ...base, method: 'CONNECT' },
      { ...base, method: 'GE T' },
      { ...base, body: 'x' },
      { ...base, method: 'POST', body: { toString: 1 } },
      { ...base, redirect: 'sometimes' },
      { ...base, url: 1 },
      null,
    ]
    for (const request of refused) expect(() => readGuestRequest(request), JSON.stringify(request)).toThrow(FetchRefusal)
  })

  it('normalizes what it accepts', () => {
    const request = readGuestRequest({ ...base, method: 'post', headers: [['X-A', ' v ']], body: 'hé' })
    expect(request.method).toBe('POST')
    expect(request.headers).toEqual([['x-a', 'v']])
    expect(request.body).toEqual(new TextEncoder().encode('hé'))
  })
})
