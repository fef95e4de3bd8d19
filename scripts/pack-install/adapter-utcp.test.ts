// The UTCP adapter in a fresh project with @utcp/sdk from the registry: its README's example runs
// a tool chain on cordon, as a user who copies it would.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Consumer, installConsumer } from './consumer.js'
import { readmeExample, toEsm } from './readme-example.js'

// The SDK version the adapter is tested with in the workspace.
const manifest = JSON.parse(readFileSync(new URL('../../packages/adapter-utcp/package.json', import.meta.url), 'utf8'))
const framework = ['@utcp/sdk'].map((name) => `${name}@${manifest.devDependencies[name]}`)

describe('@cordon/utcp with @utcp/sdk from the registry', () => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await installConsumer('utcp', {
      packages: ['@cordon/core', '@cordon/select', '@cordon/backend-subprocess', '@cordon/utcp'],
      registry: framework,
    })
    const example = readmeExample(join(consumer.dir, 'node_modules/@cordon/utcp/README.md'), 'ts', 'CodeModeUtcpClient.create(')
    writeFileSync(join(consumer.dir, 'example.mjs'), toEsm(example))
  })

  it('runs the README example: a TypeScript program calls a UTCP tool synchronously and returns through callToolChain', async () => {
    const r = await consumer.run('node', ['example.mjs'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    // UtcpClient itself logs each registration and call before the example's own line.
    expect(r.stdout).toMatch(/\{ result: \[ 'Paris' \], logs: \[ 'readings: 2' \] \}/)
  })
})
