/**
 * One Chromium and one bundled test page per test file, served cross-origin isolated or not, for
 * the conformance files that run the suite against the page's backend (page-backend.ts).
 */
import type { SandboxBackend } from '@cordon/core/backend'
import type { Browser } from 'playwright-core'
import { bundleTestPage, launchChromium, removeDir, servePage, type PageServer } from './browser-page.js'
import { createPageBackend } from './page-backend.js'

let dir: Promise<string> | undefined
let browser: Promise<Browser> | undefined
const servers = new Map<boolean, Promise<PageServer>>()

const launched = () => (browser ??= launchChromium())

const pageUrl = (isolated: boolean) => async () => {
  dir ??= bundleTestPage()
  const directory = await dir
  if (!servers.has(isolated)) servers.set(isolated, servePage(directory, { isolated }))
  return (await servers.get(isolated)!).url
}

/** A factory of backends whose engines run in a page, cross-origin isolated or not. */
export function pageBackends(isolated: boolean): () => SandboxBackend {
  return () => createPageBackend(launched, pageUrl(isolated))
}

/** Closes the browser and the servers, and removes the bundle (afterAll). */
export async function closeBrowserFixture(): Promise<void> {
  await (await browser)?.close()
  for (const server of servers.values()) await (await server).close()
  if (dir !== undefined) removeDir(await dir)
}
