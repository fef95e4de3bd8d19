// @cordon/select where only the QuickJS backend is installed, as its README's first line says.
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Consumer, installConsumer } from './consumer.js'
import { readmeExample } from './readme-example.js'

describe('@cordon/select with only @cordon/backend-quickjs', () => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await installConsumer('select', { packages: ['@cordon/select', '@cordon/core', '@cordon/backend-quickjs'] })
  })

  it('installs no other backend (they are optional peers)', () => {
    expect(existsSync(join(consumer.dir, 'node_modules/@cordon/backend-quickjs'))).toBe(true)
    expect(existsSync(join(consumer.dir, 'node_modules/@cordon/backend-subprocess'))).toBe(false)
    expect(existsSync(join(consumer.dir, 'node_modules/@cordon/backend-ivm'))).toBe(false)
    expect(existsSync(join(consumer.dir, 'node_modules/isolated-vm-5'))).toBe(false)
  })

  it('runs the README example on QuickJS and explains, with the install command, why the others are missing', async () => {
    const readme = join(consumer.dir, 'node_modules/@cordon/select/README.md')
    writeFileSync(join(consumer.dir, 'example.mjs'), readmeExample(readme, 'js', 'diagnose()'))
    const r = await consumer.run('node', ['example.mjs'])
    expect(r.stderr).toBe('')
    expect(r.stdout.split('\n')).toEqual([
      'quickjs 2',
      'subprocess the package @cordon/backend-subprocess is not installed → npm install @cordon/backend-subprocess',
      'quickjs ok',
      'ivm the package @cordon/backend-ivm is not installed → npm install @cordon/backend-ivm',
      '',
    ])
  })

  it('diagnose() reports quickjs chosen and the others not installed', async () => {
    writeFileSync(
      join(consumer.dir, 'diagnose.mjs'),
      "import { diagnose } from '@cordon/select'\nconsole.log(JSON.stringify(await diagnose()))\n",
    )
    const r = await consumer.run('node', ['diagnose.mjs'])
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report.chosen).toBe('quickjs')
    const byName = Object.fromEntries(report.candidates.map((c: { name: string }) => [c.name, c]))
    expect(byName.quickjs).toMatchObject({ available: true, status: 'available' })
    for (const name of ['subprocess', 'ivm']) {
      expect(byName[name]).toMatchObject({ available: false, status: 'not-installed', fix: `npm install @cordon/backend-${name}` })
    }
  })
})
