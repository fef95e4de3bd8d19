/**
 * @cordon/conformance against QuickJS in real Chromium: the page's backend (engines in its Web
 * Workers) served to this process over the channel protocol (helpers/page-backend.ts). The shared
 * groups in a cross-origin isolated page (stops through shared memory); in a page without
 * isolation, where a stop terminates the spinning worker instead, the groups about limits, stops
 * and lifecycle. The preemption group is in conformance.quiet.test.ts.
 */
import { describeBackendConformance, SHARED_GROUPS, type ConformanceGroup } from '@cordon/conformance'
import { afterAll, describe } from 'vitest'
import { closeBrowserFixture, pageBackends } from './helpers/browser-fixture.js'

afterAll(closeBrowserFixture)

const WITHOUT_ISOLATION: ConformanceGroup[] = ['limits', 'lifecycle', 'dos', 'concurrency']

describe('in a cross-origin isolated page', () => {
  describeBackendConformance(pageBackends(true), { groups: SHARED_GROUPS })
})

describe('in a page without cross-origin isolation', () => {
  describeBackendConformance(pageBackends(false), { groups: SHARED_GROUPS.filter((group) => WITHOUT_ISOLATION.includes(group)) })
})
