// A third-party backend package runs @cordon/conformance under its own vitest.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Consumer, installConsumer } from './consumer.js'

const fixture = fileURLToPath(new URL('fixtures/my-sandbox-backend', import.meta.url))
// The vitest this repo tests with; @cordon/conformance's peer range must accept it.
const rootManifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
const vitest = `vitest@${rootManifest.devDependencies.vitest}`

/** The parts of vitest's JSON report read here. */
interface VitestReport {
  numPassedTests: number
  testResults: { assertionResults: { status: string; fullName: string; failureMessages: string[] }[] }[]
}

describe('@cordon/conformance in a third-party backend package', () => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await installConsumer('my-sandbox-backend', {
      fixture,
      packages: ['@cordon/core', '@cordon/backend-quickjs', '@cordon/conformance'],
      registry: [vitest],
    })
  })

  it('passes describeBackendConformance under vitest', { timeout: 240_000 }, async () => {
    const r = await consumer.run('npm', ['test'])
    const json = join(consumer.dir, 'vitest.json')
    expect(existsSync(json), `vitest wrote no report:\n${r.stdout}\n${r.stderr}`.slice(-4000)).toBe(true)
    const report: VitestReport = JSON.parse(readFileSync(json, 'utf8'))
    const failures = report.testResults
      .flatMap((file) => file.assertionResults)
      .filter((test) => test.status === 'failed')
      .map((test) => `${test.fullName}: ${test.failureMessages[0]?.split('\n').slice(0, 6).join('\n')}`)
    expect(failures).toEqual([])
    expect(r.code).toBe(0)
    // The five groups the fixture asks for (hundreds of checks), and no other.
    expect(report.numPassedTests).toBeGreaterThan(100)
    const groups = new Set(report.testResults.flatMap((file) => file.assertionResults.map((test) => test.fullName.split(' ')[2])))
    expect([...groups].sort()).toEqual(['capabilities', 'errors', 'limits', 'tools', 'values'])
  })
})
