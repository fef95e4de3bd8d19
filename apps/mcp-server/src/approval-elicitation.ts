import type { RunEventListener, RunInterrupt, RunResult, Sandbox, ToolSet } from '@cordon/core'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import { ElicitResultSchema, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js'
import { jsonValue } from './json-value.js'

type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>

export interface ElicitedApprovals {
  sandbox: Sandbox
  tools: ToolSet
  extra: RequestExtra
  onEvent: RunEventListener | undefined
}

/**
 * Asks the user directly (MCP elicitation) for each call the program pauses at, and resumes it
 * with their decision, until the program ends or the client cannot be asked (the paused result
 * then goes back to the model, who continues with resume_javascript).
 */
export async function settleByElicitation(result: RunResult, { sandbox, tools, extra, onEvent }: ElicitedApprovals): Promise<RunResult> {
  while (result.interrupted) {
    const approved = await askUser(result.interrupt, extra)
    if (approved === undefined) return result
    const decision = approved ? { answer: true } : { reject: 'the user declined this call' }
    result = await sandbox.resume(result.continuation, { ...decision, tools, signal: extra.signal, ...(onEvent && { onEvent }) })
  }
  return result
}

/** True or false as the user decided; undefined when they could not be asked (or dismissed the question). */
async function askUser(interrupt: RunInterrupt, extra: RequestExtra): Promise<boolean | undefined> {
  const args = JSON.stringify(jsonValue(interrupt.args))
  try {
    const answer = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          message: `A sandboxed program wants to call ${interrupt.tool} with ${args.length > 2_000 ? `${args.slice(0, 2_000)}…` : args}. Allow it?`,
          requestedSchema: {
            type: 'object',
            properties: { approve: { type: 'boolean', title: 'Allow this call', description: `Run ${interrupt.tool} now` } },
            required: ['approve'],
          },
        },
      },
      ElicitResultSchema,
      { signal: extra.signal },
    )
    if (answer.action === 'decline') return false
    if (answer.action !== 'accept') return undefined
    return answer.content?.approve === true
  } catch {
    // The client does not support elicitation after all, or the request failed: fall back to resume_javascript.
    return undefined
  }
}
