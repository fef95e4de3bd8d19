// Types for the undici files the guarded fetch loads by path (see guarded-agent.ts): the package
// types only its entry.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici'
  const AgentClass: typeof Agent
  export default AgentClass
}
declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici'
  const build: typeof buildConnector
  export default build
}
declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici'
  /** Dispatcher.request, called with the dispatcher as `this`. */
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>
  export default request
}
