import { createCodec } from './guest/codec.js'
import { createPlainJson } from './guest/plain-json.js'
import { capturePrimordials } from './guest/primordials.js'

/** The host's instance of the value codec (the same code runs inside every guest). */
const codec = createCodec(capturePrimordials(), createPlainJson)

/** Encodes a host value to wire text; throws TypeError for values that cannot cross. */
export function encodeValue(value: unknown, budget: number, what: string): string {
  return codec.encode(value, budget, what)
}

/** Decodes wire text (untrusted) into fresh host values. Never runs guest code. */
export function decodeValue(wire: string): unknown {
  return codec.decode(wire)
}

/**
 * Whether wire text the codec wrote holds no tagged value, so that JSON.parse alone decodes it.
 * The codec writes every tag (and every escaped object) as an object whose first key is `$`, and
 * `{"$"` can occur nowhere else in JSON text (a quote inside a string is escaped). Not for
 * untrusted text: only the codec's own output keeps that promise.
 */
export function isUntaggedWire(wire: string): boolean {
  return !wire.includes('{"$"')
}

export function isLimitMarker(error: unknown): error is { code: 'OUTPUT_LIMIT'; message: string } {
  return codec.isLimitError(error)
}

/** Whether `text` takes at most `maxBytes` in UTF-8; counts only when its length cannot tell. */
export function fitsUtf8(text: string, maxBytes: number): boolean {
  // A UTF-16 unit takes one to three bytes (a surrogate pair four, for two units).
  if (text.length * 3 <= maxBytes) return true
  return text.length <= maxBytes && utf8Length(text) <= maxBytes
}

/** UTF-8 byte length without Buffer (core also runs in browsers). */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}
