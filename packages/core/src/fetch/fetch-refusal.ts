/**
 * A request the guarded fetch refuses (not allowed, private address, over a cap, malformed). It
 * reaches the guest as a TypeError, as WHATWG fetch rejects on a network error, and its message
 * says why; it never holds a secret value.
 */
export class FetchRefusal extends TypeError {}
