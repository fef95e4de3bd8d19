// The Mastra adapter in a fresh project with the framework from the registry: its README's
// example runs createCodeMode on cordon, as a user who copies it would.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Consumer, installConsumer } from './consumer.js'
import { readmeExample, toEsm } from './readme-example.js'

// The framework versions the adapter is tested with in the workspace.
const manifest = JSON.parse(readFileSync(new URL('../../packages/adapter-mastra/package.json', import.meta.url), 'utf8'))
const framework = ['@mastra/core', 'zod'].map((name) => `${name}@${manifest.devDependencies[name]}`)

describe('@cordon/mastra with Mastra from the registry', () => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await installConsumer('mastra', {
      packages: ['@cordon/core', '@cordon/select', '@cordon/backend-quickjs', '@cordon/mastra'],
      registry: framework,
    })
    const example = readmeExample(join(consumer.dir, 'node_modules/@cordon/mastra/README.md'), 'ts', 'createCordonCodeModeTransport(')
    writeFileSync(join(consumer.dir, 'example.mjs'), toEsm(example))
  })

  it("runs the README example: the model's TypeScript calls a tool and returns through Mastra's code-mode tool", async () => {
    const r = await consumer.run('node', ['example.mjs'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/success: true,\s+result: 21,\s+logs: \[ 'got \{"city":"Paris","tempC":21\}' \]/)
  })
})
