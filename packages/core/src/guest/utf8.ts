/**
 * UTF-8 for the guest's fetch API (guest engines have no TextEncoder or TextDecoder): encoding
 * turns lone surrogates into U+FFFD, decoding follows WHATWG (invalid sequences become U+FFFD, a
 * leading BOM is dropped).
 *
 * Self-contained: it is stringified into guest engines (no imports, no template literals).
 */
import type { Primordials } from './primordials.js'

export interface Utf8 {
  encode(text: string): Uint8Array
  decode(bytes: Uint8Array): string
}

export function createUtf8(p: Primordials): Utf8 {
  'use strict'
  const { apply, list, StringCtor, stringCharCodeAt, Uint8ArrayCtor } = p

  const fromCharCode = StringCtor.fromCharCode
  const charCodeAt = (text: string, i: number): number => apply(stringCharCodeAt, text, [i])
  const fromCodes = (codes: number[]): string => apply(fromCharCode, undefined, codes)

  function encode(text: string): Uint8Array {
    const out: number[] = list()
    for (let i = 0; i < text.length; i++) {
      let c = charCodeAt(text, i)
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = charCodeAt(text, i + 1)
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
          i++
        } else c = 0xfffd
      } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd
      if (c < 0x80) out[out.length] = c
      else if (c < 0x800) {
        out[out.length] = 0xc0 | (c >> 6)
        out[out.length] = 0x80 | (c & 63)
      } else if (c < 0x10000) {
        out[out.length] = 0xe0 | (c >> 12)
        out[out.length] = 0x80 | ((c >> 6) & 63)
        out[out.length] = 0x80 | (c & 63)
      } else {
        out[out.length] = 0xf0 | (c >> 18)
        out[out.length] = 0x80 | ((c >> 12) & 63)
        out[out.length] = 0x80 | ((c >> 6) & 63)
        out[out.length] = 0x80 | (c & 63)
      }
    }
    const bytes = new Uint8ArrayCtor(out.length)
    for (let i = 0; i < out.length; i++) bytes[i] = out[i] as number
    return bytes
  }

  /** WHATWG UTF-8 decode: invalid sequences become U+FFFD; a leading BOM is dropped. */
  function decode(bytes: Uint8Array): string {
    let out = ''
    let chunk: number[] = list()
    const push = (code: number) => {
      if (code > 0xffff) {
        code -= 0x10000
        chunk[chunk.length] = 0xd800 + (code >> 10)
        chunk[chunk.length] = 0xdc00 + (code & 1023)
      } else chunk[chunk.length] = code
      if (chunk.length >= 4096) {
        out += fromCodes(chunk)
        chunk = list()
      }
    }
    let i = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
    while (i < bytes.length) {
      const b = bytes[i] as number
      let need: number
      let code: number
      let lower = 0x80
      let upper = 0xbf
      if (b < 0x80) {
        push(b)
        i++
        continue
      } else if (b >= 0xc2 && b <= 0xdf) {
        need = 1
        code = b & 31
      } else if (b >= 0xe0 && b <= 0xef) {
        need = 2
        code = b & 15
        if (b === 0xe0) lower = 0xa0
        if (b === 0xed) upper = 0x9f
      } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3
        code = b & 7
        if (b === 0xf0) lower = 0x90
        if (b === 0xf4) upper = 0x8f
      } else {
        push(0xfffd)
        i++
        continue
      }
      let j = i + 1
      let ok = true
      for (let k = 0; k < need; k++, j++) {
        const next = bytes[j]
        if (next === undefined || next < lower || next > upper) {
          ok = false
          break
        }
        lower = 0x80
        upper = 0xbf
        code = (code << 6) | (next & 63)
      }
      push(ok ? code : 0xfffd)
      i = j
    }
    return out + fromCodes(chunk)
  }

  return { encode, decode }
}
