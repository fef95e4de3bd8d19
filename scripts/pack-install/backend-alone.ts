// One backend with @cordon/core in a fresh project: the package README's example must run
// as an ES module and through require(), on the packages as npm installed them.
import { existsSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Consumer, installConsumer } from './consumer.js'
import { readmeExample, toCjs, toEsm } from './readme-example.js'

export interface BackendAloneOptions {
  pkg: string
  /** What the README's example prints, as the README's own comment says. */
  prints: RegExp
  nodeArgs?: string[]
  /** Other READMEs whose example runs on this project's packages (path absolute or relative to the project). */
  alsoRuns?: { name: string; readme: string; prints: RegExp }[]
  /** The package README's example again, rewritten (e.g. with another option), must print the same. */
  variants?: { name: string; rewrite: (example: string) => string }[]
}

export function describeBackendAlone({ pkg, prints, nodeArgs = [], alsoRuns = [], variants = [] }: BackendAloneOptions): void {
  describe(`${pkg} alone with @cordon/core`, () => {
    let consumer: Consumer
    let example: string
    beforeAll(async () => {
      consumer = await installConsumer(pkg.replace('@cordon/', ''), { packages: ['@cordon/core', pkg] })
      example = readmeExample(join(consumer.dir, 'node_modules', pkg, 'README.md'), 'ts', 'createSandbox(')
      writeFileSync(join(consumer.dir, 'example.mjs'), toEsm(example))
      writeFileSync(join(consumer.dir, 'example.cjs'), toCjs(example))
    })

    it("installs its runtime dependencies and none of the workspace's dev-only ones", () => {
      expect(existsSync(join(consumer.dir, 'node_modules/@cordon/core/dist/index.js'))).toBe(true)
      expect(existsSync(join(consumer.dir, 'node_modules/@cordon/conformance'))).toBe(false)
      expect(existsSync(join(consumer.dir, 'node_modules/vitest'))).toBe(false)
    })

    it('the README example calls a tool under limits', () => {
      expect(example).toMatch(/tools: \{ '[\w.]+': \{ execute:/)
      expect(example).toMatch(/timeoutMs: /)
    })

    it('runs the README example as an ES module', async () => {
      const r = await consumer.run('node', [...nodeArgs, 'example.mjs'])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(prints)
    })

    // The packages are ESM only; CommonJS users load them with require(esm) (Node ≥ 20.19, 22.12).
    it.runIf(process.features.require_module)('runs the README example through require() from CommonJS', async () => {
      const r = await consumer.run('node', [...nodeArgs, 'example.cjs'])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(prints)
    })

    for (const variant of variants) {
      it(`runs the README example ${variant.name}`, async () => {
        const rewritten = variant.rewrite(example)
        expect(rewritten).not.toBe(example)
        writeFileSync(join(consumer.dir, 'variant.mjs'), toEsm(rewritten))
        const r = await consumer.run('node', [...nodeArgs, 'variant.mjs'])
        expect(r.stderr).toBe('')
        expect(r.code).toBe(0)
        expect(r.stdout).toMatch(prints)
      })
    }

    for (const other of alsoRuns) {
      it(`runs the example of ${other.name}`, async () => {
        const code = readmeExample(resolve(consumer.dir, other.readme), 'ts', 'createSandbox(')
        writeFileSync(join(consumer.dir, 'other.mjs'), toEsm(code))
        const r = await consumer.run('node', [...nodeArgs, 'other.mjs'])
        expect(r.stderr).toBe('')
        expect(r.stdout).toMatch(other.prints)
      })
    }
  })
}
