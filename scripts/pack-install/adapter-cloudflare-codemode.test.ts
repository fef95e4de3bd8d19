// The Cloudflare codemode adapter in a fresh project with the framework from the registry: its
// README's examples run createCodeTool on cordon as a user who copies them would, the TanStack AI
// one in plain Node and the AI SDK one through the package's ./register loader hook.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Consumer, installConsumer } from './consumer.js'
import { readmeExample, toEsm } from './readme-example.js'

// The framework versions the adapter is tested with in the workspace.
const manifest = JSON.parse(readFileSync(new URL('../../packages/adapter-cloudflare-codemode/package.json', import.meta.url), 'utf8'))
const framework = ['@cloudflare/codemode', '@tanstack/ai', 'ai', 'zod'].map((name) => `${name}@${manifest.devDependencies[name]}`)

describe('@cordon/cloudflare-codemode with Cloudflare codemode from the registry', () => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await installConsumer('cloudflare-codemode', {
      packages: ['@cordon/core', '@cordon/select', '@cordon/backend-quickjs', '@cordon/cloudflare-codemode'],
      registry: framework,
    })
    const readme = join(consumer.dir, 'node_modules/@cordon/cloudflare-codemode/README.md')
    writeFileSync(join(consumer.dir, 'example.mjs'), toEsm(readmeExample(readme, 'ts', 'createCordonExecutor(')))
    writeFileSync(join(consumer.dir, 'ai-example.mjs'), toEsm(readmeExample(readme, 'ts', "from '@cloudflare/codemode/ai'")))
  })

  it("runs the README example: the model's code calls a tool through TanStack AI's createCodeTool", async () => {
    const r = await consumer.run('node', ['example.mjs'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/\{ result: 21, logs: \[ 'got 21' \] \}/)
  })

  it("runs the README's AI SDK example with node --import @cordon/cloudflare-codemode/register", async () => {
    const r = await consumer.run('node', ['--import', '@cordon/cloudflare-codemode/register', 'ai-example.mjs'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/\{ result: 21 \}/)
  })
})
