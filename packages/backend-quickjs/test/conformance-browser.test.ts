/**
 * @cordon/conformance against QuickJS in real Chromium: the page's backend (engines in its Web
 * Workers) served to this process over the channel protocol (helpers/page-backend.ts). The shared
 * groups in a cross-origin isolated page (stops through shared memory); in a page without
 * isolation, where a stop terminates the spinning worker instead, the groups about limits, stops
 * and lifecycle.
 */
import { describeBackendConformance, SHARED_GROUPS, type ConformanceGroup } from '@cordon/conformance'
import { afterAll, describe } from 'vitest'
import type { Browser } from 'playwright-core'
import { bundleTestPage, launchChromium, removeDir, servePage, type PageServer } from './helpers/browser-page.js'
import { createPageBackend } from './helpers/page-backend.js'

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

afterAll(async () => {
  await (await browser)?.close()
  for (const server of servers.values()) await (await server).close()
  if (dir !== undefined) removeDir(await dir)
})

const WITHOUT_ISOLATION: ConformanceGroup[] = ['limits', 'lifecycle', 'dos', 'concurrency']

describe('in a cross-origin isolated page', () => {
  describeBackendConformance(() => createPageBackend(launched, pageUrl(true)), { groups: SHARED_GROUPS })
})

describe('in a page without cross-origin isolation', () => {
  describeBackendConformance(() => createPageBackend(launched, pageUrl(false)), {
    groups: SHARED_GROUPS.filter((group) => WITHOUT_ISOLATION.includes(group)),
  })
})
