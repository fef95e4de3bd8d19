import { describe, expect, it } from 'vitest'
import { toolFailureError, toolFailureFromPayload, toolFailureOf } from '../src/tool-failure.js'

describe('what a guest sees of a tool failure', () => {
  it('takes name, message and a string code from errors and plain objects, and nothing else', () => {
    class QuotaError extends Error {
      override name = 'QuotaError'
      code = 'E_QUOTA'
      secret = 'host detail'
    }
    expect(toolFailureOf(new QuotaError('over'))).toEqual({ name: 'QuotaError', message: 'over', code: 'E_QUOTA' })
    expect(toolFailureOf(new TypeError('bad'))).toEqual({ name: 'TypeError', message: 'bad' })
    expect(toolFailureOf(Object.assign(new Error('x'), { code: 42 }))).toEqual({ name: 'Error', message: 'x' })
    expect(toolFailureOf({ name: 'V', message: 'm', code: 'C', stack: 'host' })).toEqual({ name: 'V', message: 'm', code: 'C' })
  })

  it('makes thrown primitives the message of an Error, and anything else "tool failed"', () => {
    expect(toolFailureOf('text')).toEqual({ name: 'Error', message: 'text' })
    expect(toolFailureOf(404)).toEqual({ name: 'Error', message: '404' })
    expect(toolFailureOf(null)).toEqual({ name: 'Error', message: 'tool failed' })
    expect(toolFailureOf(undefined)).toEqual({ name: 'Error', message: 'tool failed' })
    expect(toolFailureOf(Symbol('s'))).toEqual({ name: 'Error', message: 'tool failed' })
    expect(toolFailureOf({ name: 7, message: {} })).toEqual({ name: 'Error', message: 'tool failed' })
  })

  it('survives getters that throw, and cuts names and codes to 200 characters', () => {
    const hostile = Object.defineProperty({}, 'message', {
      get() {
        throw new Error('no')
      },
    })
    expect(toolFailureOf(hostile)).toEqual({ name: 'Error', message: 'tool failed' })
    const long = toolFailureOf({ name: 'N'.repeat(500), message: 'm', code: 'C'.repeat(500) })
    expect([long.name.length, long.code?.length]).toEqual([200, 200])
  })

  it('reads payloads from untrusted text with the same defaults, and rebuilds host errors of the right class', () => {
    expect(toolFailureFromPayload('not json')).toEqual({ name: 'Error', message: 'the tool failed' })
    expect(toolFailureFromPayload('{"name":"X","message":"m","code":"c"}')).toEqual({ name: 'X', message: 'm', code: 'c' })
    const range = toolFailureError({ name: 'RangeError', message: 'r' })
    expect([range instanceof RangeError, range.name, range.message]).toEqual([true, 'RangeError', 'r'])
    const named = toolFailureError({ name: 'NotFoundError', message: 'n', code: 'E' })
    expect([named.constructor, named.name, (named as Error & { code?: string }).code]).toEqual([Error, 'NotFoundError', 'E'])
    expect(toolFailureOf(named)).toEqual({ name: 'NotFoundError', message: 'n', code: 'E' })
  })
})
