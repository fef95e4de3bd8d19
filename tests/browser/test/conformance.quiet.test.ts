/**
 * The preemption group against QuickJS in Chromium (see conformance.test.ts), with and
 * without cross-origin isolation: it measures how fast a stop ends a spinning guest, so it runs
 * alone.
 */
import { describeBackendConformance, QUIET_GROUPS } from '@cordon/conformance'
import { afterAll, describe } from 'vitest'
import { closeBrowserFixture, pageBackends } from './helpers/browser-fixture.js'

afterAll(closeBrowserFixture)

describe('in a cross-origin isolated page', () => {
  describeBackendConformance(pageBackends(true), { groups: QUIET_GROUPS })
})

describe('in a page without cross-origin isolation', () => {
  describeBackendConformance(pageBackends(false), { groups: QUIET_GROUPS })
})
