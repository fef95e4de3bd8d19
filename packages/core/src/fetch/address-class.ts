/**
 * Which addresses the guarded fetch may connect to. Parsing is ipaddr.js's (it reads every IPv4
 * spelling: decimal, octal, hex, short forms; IPv4-mapped IPv6 and zone ids), never our own.
 */
import ipaddr from 'ipaddr.js'

/**
 * `public`: a global unicast address. `private`: loopback, RFC 1918, CGNAT, link-local, unique
 * local and the other special-use ranges, reachable only through the explicit opt-in.
 * `forbidden`: never, whatever the options say (unspecified, broadcast, multicast, cloud metadata).
 */
export type AddressClass = 'public' | 'private' | 'forbidden'

export interface AddressVerdict {
  kind: AddressClass
  /** ipaddr.js's range name (`loopback`, `private`, `uniqueLocal`, …) or `metadata`. */
  range: string
}

/** Cloud metadata endpoints, refused even with `allowPrivateAddresses`. */
const METADATA = ['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200']
const FORBIDDEN_RANGES = new Set(['unspecified', 'broadcast', 'multicast'])

/** Classifies one IP address in any spelling; `undefined` if it is not an IP address at all. */
export function classifyAddress(text: string): AddressVerdict | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  if (!ipaddr.isValid(bare)) return undefined
  // process(): an IPv4-mapped IPv6 address (::ffff:127.0.0.1) becomes the IPv4 address it names.
  const address = ipaddr.process(bare)
  for (const metadata of METADATA) {
    const known = ipaddr.parse(metadata)
    if (known.kind() === address.kind() && known.toNormalizedString() === address.toNormalizedString()) {
      return { kind: 'forbidden', range: 'metadata' }
    }
  }
  const range = address.range()
  if (range === 'unicast') return { kind: 'public', range }
  return { kind: FORBIDDEN_RANGES.has(range) ? 'forbidden' : 'private', range }
}

/**
 * Whether a connection to `address` is allowed. Private addresses only with the opt-in and only
 * when the URL named the address literally (so no DNS answer can lead there).
 */
export function addressRefusal(address: string, privateAllowed: boolean): string | undefined {
  const verdict = classifyAddress(address)
  if (verdict === undefined) return `${address} is not an IP address`
  if (verdict.kind === 'public') return undefined
  if (verdict.kind === 'private' && privateAllowed) return undefined
  const hint = verdict.kind === 'private' ? ' (reachable only with fetch.allowPrivateAddresses and the address named in fetch.allow)' : ''
  return `${address} is a ${verdict.range} address${hint}`
}
