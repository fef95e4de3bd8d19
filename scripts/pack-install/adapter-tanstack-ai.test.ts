// The TanStack AI adapter in a fresh project with the framework from the registry: its README's
// example runs createCodeModeTool on cordon, as a user who copies it would.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Consumer, installConsumer } from './consumer.js'
import { readmeExample, toEsm } from './readme-example.js'

// The framework versions the adapter is tested with in the workspace.
const manifest = JSON.parse(readFileSync(new URL('../../packages/adapter-tanstack-ai/package.json', import.meta.url), 'utf8'))
const framework = ['@tanstack/ai-code-mode', '@tanstack/ai', 'zod'].map((name) => `${name}@${manifest.devDependencies[name]}`)

describe('@cordon/tanstack-ai with TanStack AI from the registry', () => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await installConsumer('tanstack-ai', {
      packages: ['@cordon/core', '@cordon/select', '@cordon/backend-quickjs', '@cordon/tanstack-ai'],
      registry: framework,
    })
    const example = readmeExample(join(consumer.dir, 'node_modules/@cordon/tanstack-ai/README.md'), 'ts', 'createCordonIsolateDriver(')
    writeFileSync(join(consumer.dir, 'example.mjs'), toEsm(example))
  })

  it("runs the README example: the model's TypeScript calls a tool and returns through TanStack's tool", async () => {
    const r = await consumer.run('node', ['example.mjs'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/success: true,\s+result: 21,\s+logs: \[ 'got \{"city":"Paris","tempC":21\}' \]/)
  })
})
