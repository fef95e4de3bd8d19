/**
 * The transport inside a real Mastra Agent: a scripted model (Mastra's own test model) asks for
 * `execute_typescript`, the agent runs it through createCodeMode on cordon, and the program's
 * result goes back to the model.
 */
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { Agent } from '@mastra/core/agent'
import { MastraLanguageModelV2Mock } from '@mastra/core/test-utils/llm-mock'
import { createCodeMode, createTool } from '@mastra/core/tools'
import { afterAll, expect, it } from 'vitest'
import { z } from 'zod'
import { createCordonCodeModeTransport } from '../src/index.js'

const transport = createCordonCodeModeTransport({ backend: createQuickJSBackend() })
afterAll(() => transport.dispose())

const getWeather = createTool({
  id: 'getWeather',
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, tempC: city.length }),
})

type Generated = Awaited<ReturnType<MastraLanguageModelV2Mock['doGenerate']>>
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }

/** A model that first calls the code-mode tool with `code`, then answers with text. */
function scriptedModel(code: string) {
  const replies: Partial<Generated>[] = [
    {
      content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'execute_typescript', input: JSON.stringify({ code }) }],
      finishReason: 'tool-calls',
    },
    { content: [{ type: 'text', text: 'done' }], finishReason: 'stop' },
  ]
  let turn = 0
  return new MastraLanguageModelV2Mock({
    doGenerate: async () => ({ usage, warnings: [], ...replies[Math.min(turn++, replies.length - 1)] }) as Generated,
  })
}

it("runs the model's program when an Agent calls the code-mode tool", async () => {
  const { tool, instructions } = createCodeMode({ tools: { getWeather } }, transport)
  expect(instructions).toContain('declare function external_getWeather')
  const code = "const w: { tempC: number } = await external_getWeather({ city: 'Paris' })\nconsole.log('got', w)\nreturn w.tempC * 2"
  const agent = new Agent({ id: 'weather', name: 'weather', instructions, model: scriptedModel(code), tools: { [tool.id]: tool } })
  const answer = await agent.generate('How warm is Paris, doubled?')
  expect(answer.text).toBe('done')
  expect(answer.toolResults.map((part) => part.payload.result)).toEqual([
    { success: true, result: 10, logs: ['got {"city":"Paris","tempC":5}'] },
  ])
})
