// The installed .d.ts, as TypeScript users resolve them: strict, skipLibCheck off, node16 and bundler.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { type Consumer, installConsumer } from './consumer.js'
import { readmeExample } from './readme-example.js'

const fixture = fileURLToPath(new URL('fixtures/types', import.meta.url))
const { devDependencies } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
// The package READMEs' TypeScript examples are consumer files too.
const readmes = ['core', 'backend-quickjs', 'backend-ivm', 'backend-subprocess']

describe('types of the installed packages', () => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await installConsumer('types', {
      fixture,
      packages: Object.keys(inject('packInstall').tarballs), // every publishable package
      registry: [`typescript@${devDependencies.typescript}`, `@types/node@${devDependencies['@types/node']}`],
      ignoreScripts: true, // reads .d.ts only: no need to compile isolated-vm again
    })
    for (const name of readmes) {
      const example = readmeExample(join(consumer.dir, 'node_modules/@cordon', name, 'README.md'), 'ts', 'createSandbox(')
      writeFileSync(join(consumer.dir, `readme-${name}.ts`), example)
    }
  })

  it.each(['node16', 'bundler'])('a strict consumer type-checks with moduleResolution %s', async (resolution) => {
    const r = await consumer.run('node', ['node_modules/typescript/bin/tsc', '-p', `tsconfig.${resolution}.json`])
    expect(r.stdout + r.stderr).toBe('')
    expect(r.code).toBe(0)
  })
})
