/**
 * A stand-in for `@utcp/direct-call` (not in this workspace): UTCP's in-process protocol, where a
 * manual and its tools are JavaScript functions registered by name. Registered the way UTCP's
 * protocol plugins register, through @utcp/sdk's own extension points: a CallTemplate serializer
 * and a CommunicationProtocol. As in direct-call, a tool's arguments are passed spread, in the
 * order of their keys.
 */
import {
  CallTemplateSerializer,
  CommunicationProtocol,
  Serializer,
  UtcpManualSerializer,
  ensureCorePluginsInitialized,
  type CallTemplate,
  type IUtcpClient,
  type RegisterManualResult,
} from '@utcp/sdk'

type Callable = (...args: unknown[]) => unknown

const callables = new Map<string, Callable>()

/** Makes `fn` callable as `{ call_template_type: 'direct-call', callable_name: name }`. */
export function addFunctionToUtcpDirectCall(name: string, fn: (...args: never[]) => unknown): void {
  callables.set(name, fn as Callable)
}

function callableOf(template: CallTemplate): Callable {
  const name: unknown = template.callable_name
  const callable = typeof name === 'string' ? callables.get(name) : undefined
  if (callable === undefined) throw new Error(`Callable '${String(name)}' not found`)
  return callable
}

class DirectCallTemplateSerializer extends Serializer<CallTemplate> {
  toDict(template: CallTemplate): Record<string, unknown> {
    return { ...template }
  }
  validateDict(dict: Record<string, unknown>): CallTemplate {
    if (dict.call_template_type !== 'direct-call' || typeof dict.callable_name !== 'string') {
      throw new Error('a direct-call template needs call_template_type "direct-call" and a callable_name')
    }
    return dict as CallTemplate
  }
}

class DirectCallProtocol extends CommunicationProtocol {
  async registerManual(_caller: IUtcpClient, template: CallTemplate): Promise<RegisterManualResult> {
    const manual = new UtcpManualSerializer().validateDict((await callableOf(template)()) as Record<string, unknown>)
    return { manualCallTemplate: template, manual, success: true, errors: [] }
  }
  async deregisterManual(): Promise<void> {}
  async callTool(_caller: IUtcpClient, _toolName: string, toolArgs: Record<string, unknown>, template: CallTemplate): Promise<unknown> {
    return await callableOf(template)(...Object.values(toolArgs))
  }
  async *callToolStreaming(caller: IUtcpClient, toolName: string, toolArgs: Record<string, unknown>, template: CallTemplate) {
    yield await this.callTool(caller, toolName, toolArgs, template)
  }
  override async close(): Promise<void> {}
}

ensureCorePluginsInitialized()
CallTemplateSerializer.registerCallTemplate('direct-call', new DirectCallTemplateSerializer(), true)
CommunicationProtocol.communicationProtocols['direct-call'] = new DirectCallProtocol()
