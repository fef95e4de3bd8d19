/**
 * Secrets of the guarded fetch: the guest writes a secret's name in a header value, the host puts
 * the value there, only for the hosts the secret is bound to; and whatever the host hands back
 * (response headers, body, URL, error messages) has every secret value replaced by its name.
 */
import type { FetchPolicy } from './fetch-options.js'

type Secrets = FetchPolicy['secrets']

/** `NAME` as a whole word: not part of a longer identifier. */
function wordPattern(name: string): RegExp {
  return new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`, 'g')
}

export type SecretsVerdict = { ok: true; headers: [string, string][] } | { ok: false; reason: string }

/**
 * Header values with each bound secret's name replaced by its value. A name in a request to a
 * host the secret is not bound to refuses the request: the placeholder never leaves unnoticed.
 */
export function applySecrets(headers: readonly [string, string][], hostname: string, secrets: Secrets): SecretsVerdict {
  if (secrets.size === 0) return { ok: true, headers: headers.map(([name, value]) => [name, value]) }
  const out: [string, string][] = []
  for (const [name, value] of headers) {
    let next = value
    for (const [secretName, secret] of secrets) {
      const pattern = wordPattern(secretName)
      if (!pattern.test(next)) continue
      if (!secret.hosts.has(hostname)) {
        return { ok: false, reason: `header ${name} names the secret ${secretName}, which is not bound to ${hostname}` }
      }
      next = next.replace(wordPattern(secretName), () => secret.value)
    }
    out.push([name, next])
  }
  return { ok: true, headers: out }
}

/** Replaces every secret value in `text` by the secret's name. */
export function redactText(text: string, secrets: Secrets): string {
  let out = text
  for (const [name, secret] of secrets) if (out.includes(secret.value)) out = out.split(secret.value).join(name)
  return out
}

/** Replaces every secret value (as UTF-8 bytes) in `bytes` by the secret's name. */
export function redactBytes(bytes: Uint8Array, secrets: Secrets): Uint8Array {
  let out = bytes
  for (const [name, secret] of secrets) {
    const needle = Buffer.from(secret.value, 'utf8')
    const buffer = Buffer.from(out.buffer, out.byteOffset, out.byteLength)
    if (buffer.indexOf(needle) < 0) continue
    const parts: Buffer[] = []
    let from = 0
    for (let at = buffer.indexOf(needle); at >= 0; at = buffer.indexOf(needle, from)) {
      parts.push(buffer.subarray(from, at), Buffer.from(name, 'utf8'))
      from = at + needle.length
    }
    parts.push(buffer.subarray(from))
    out = new Uint8Array(Buffer.concat(parts))
  }
  return out
}
