import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * Whether an `Authorization` header carries the token. Digests of equal length are compared in
 * constant time, so neither the token's length nor its content shows in the timing.
 */
export function createTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest()
  return (authorization) => {
    const presented = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? ''
    const digest = createHash('sha256').update(presented).digest()
    return timingSafeEqual(digest, expected) && presented !== ''
  }
}
