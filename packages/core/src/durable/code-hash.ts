import { toBase64Url } from './base64url.js'
import { sha256 } from './sha256.js'

/** SHA-256 of the code as given to `run`, base64url: what a continuation was made for. */
export function codeHash(code: string): string {
  return toBase64Url(sha256(code))
}
