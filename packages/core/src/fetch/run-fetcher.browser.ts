/**
 * The guarded fetch in the browser build (this `.browser.ts` variant replaces run-fetcher.ts
 * there): its guard resolves each host name and pins the connection to the checked address,
 * which a page cannot do (no DNS, no socket below fetch), so a guest's fetch is refused there,
 * saying why.
 */
import type { FetchPolicy } from './fetch-options.js'
import { FetchRefusal } from './fetch-refusal.js'
import type { GuestResponse } from './request-shape.js'

export class RunFetcher {
  requests = 0

  // The same shape as run-fetcher.ts's.
  constructor(_policy: FetchPolicy) {}

  fetch(_raw: unknown, _runSignal: AbortSignal): Promise<GuestResponse> {
    return Promise.reject(
      new FetchRefusal(
        'fetch is not available in a browser: the guarded fetch pins each connection to the address it checked, which a page cannot',
      ),
    )
  }

  close(): void {}
}
