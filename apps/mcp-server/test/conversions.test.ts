import { resolveLimits } from '@cordon/core'
import { describe, expect, it } from 'vitest'
import { limitsForCall, PER_CALL_LIMITS } from '../src/call-limits.js'
import { expandEnv } from '../src/expand-env.js'
import { guestIdentifiers, pascalCase } from '../src/guest-names.js'
import { jsonValue } from '../src/json-value.js'
import { toolResultValue } from '../src/tool-result-value.js'

// The pure pieces the end-to-end tests cannot reach every corner of.

describe('guest names of MCP tools', () => {
  it('become identifiers the guest can call, without collisions', () => {
    expect(guestIdentifiers(['list_issues', 'get-issue', 'issues.list', 'delete', '2fa', 'get_issue'])).toEqual([
      'list_issues',
      'get_issue',
      'issues_list',
      'delete_',
      '_2fa',
      'get_issue_2',
    ])
    expect(pascalCase('get_issue_2')).toBe('GetIssue2')
    expect(pascalCase('_2fa')).toBe('T2fa')
  })
})

describe('upstream results as guest values', () => {
  const text = (value: string) => ({ type: 'text' as const, text: value })

  it('prefer structuredContent, then JSON text, then plain text', () => {
    expect(toolResultValue({ content: [text('{"a":1}')], structuredContent: { b: 2 } }, 't')).toEqual({ b: 2 })
    expect(toolResultValue({ content: [text('{"a":1}')] }, 't')).toEqual({ a: 1 })
    expect(toolResultValue({ content: [text('not json')] }, 't')).toBe('not json')
    expect(toolResultValue({ content: [] }, 't')).toBeUndefined()
  })

  it('give an array for several blocks and keep non-text blocks as they are', () => {
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' }
    expect(toolResultValue({ content: [text('1'), text('two'), image] }, 't')).toEqual([1, 'two', image])
  })

  it('throw the text of an isError result', () => {
    expect(() => toolResultValue({ content: [text('rate limited')], isError: true }, 'gh.list')).toThrow(/^rate limited$/)
    expect(() => toolResultValue({ content: [], isError: true }, 'gh.list')).toThrow('gh.list failed (the server gave no message)')
  })
})

describe('per-call limits', () => {
  const ceilings = resolveLimits({ timeoutMs: 5_000, maxToolCalls: 10 })

  it('are lowered to the ceiling, never raised, and left to the defaults when absent', () => {
    expect(limitsForCall(ceilings, { timeoutMs: 60_000, maxToolCalls: 3 }, PER_CALL_LIMITS)).toEqual({
      limits: { timeoutMs: 5_000, maxToolCalls: 3 },
      notes: ['timeoutMs 60000 was lowered to 5000, the most this server allows'],
    })
    expect(limitsForCall(ceilings, {}, PER_CALL_LIMITS)).toEqual({ limits: {}, notes: [] })
  })

  it('leave out memoryMb where the backend does not enforce it', () => {
    expect(limitsForCall(ceilings, { memoryMb: 32 }, ['timeoutMs'])).toEqual({
      limits: {},
      notes: ["memoryMb was ignored: this server's sandbox backend does not enforce it"],
    })
  })
})

describe('values as JSON', () => {
  it('convert what JSON lacks and keep a __proto__ key as data', () => {
    const value = JSON.parse('{"__proto__": {"x": 1}}') as object
    expect(
      jsonValue({ n: -0, nan: NaN, big: 1n, set: new Set([1]), bytes: new Uint8Array([1, 2]), skip: undefined, err: new RangeError('r') }),
    ).toEqual({
      n: 0,
      nan: null,
      big: '1',
      set: [1],
      bytes: [1, 2],
      err: { name: 'RangeError', message: 'r' },
    })
    expect(Object.keys(jsonValue(value) as object)).toEqual(['__proto__'])
  })
})

describe('${VAR} in upstream settings', () => {
  it('is replaced from the environment; $${ stays literal; a missing one is an error', () => {
    expect(expandEnv('Bearer ${TOKEN}', { TOKEN: 'abc' }, 'env.AUTH')).toBe('Bearer abc')
    expect(expandEnv('$${TOKEN}', {}, 'args[0]')).toBe('${TOKEN}')
    expect(() => expandEnv('${NOPE}', {}, 'env.X')).toThrow("env.X uses ${NOPE}, which is not set in cordon-mcp's environment")
  })
})
