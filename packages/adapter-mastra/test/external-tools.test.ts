import { sanitizeToolId } from '@mastra/core/tools'
import { describe, expect, it } from 'vitest'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createCordonCodeModeTransport, externalName } from '../src/index.js'

describe('externalName', () => {
  it("names tools as Mastra's stubs do", () => {
    for (const id of ['getWeather', 'lookup-user', 'github.listIssues', '1st', '', '$ok', 'ünï', 'a b', '😀x', '__x__']) {
      expect(externalName(id)).toBe(sanitizeToolId(id))
    }
  })

  it('refuses two tools that would have the same name in the program', async () => {
    const transport = createCordonCodeModeTransport({ backend: createQuickJSBackend() })
    const run = transport.run({ program: 'return 1', toolIds: ['a-b', 'a_b'], dispatch: async () => null, timeout: 1_000 })
    await expect(run).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringMatching(/"a-b" and "a_b"/) })
    await transport.dispose()
  })
})
