/**
 * A debugger for the inspector checks: chrome-remote-interface (a CDP client from the registry)
 * plus what DevTools does with a source map — find the user's program, set a breakpoint by its
 * line, tell which line of it a pause is at. Loaded only by the checks that need it.
 */
import { generatedPositionFor, originalPositionFor, TraceMap } from '@jridgewell/trace-mapping'
import { within } from '../runner.js'

export interface CdpLocation {
  scriptId: string
  lineNumber: number
  columnNumber?: number
}

export interface CdpCallFrame {
  callFrameId: string
  functionName: string
  url: string
  location: CdpLocation
  scopeChain: { type: string; object: { objectId?: string } }[]
}

export interface PausedEvent {
  callFrames: CdpCallFrame[]
  reason: string
}

/** The user's program as the debugger sees it. */
export interface DebuggedProgram {
  scriptId: string
  /** The name of the user's code in the source map, and its text there. */
  sourceName: string
  source: string
  /** The 1-based line of the user's code at a location in the program's script. */
  userLine(location: CdpLocation): number | undefined
  map: TraceMap
}

export interface DebuggerClient {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>
  /** Debugger.enable, then the script whose source map names the user's program. */
  enableAndFindProgram(): Promise<DebuggedProgram>
  setBreakpointAtLine(program: DebuggedProgram, line: number): Promise<void>
  nextPause(): Promise<PausedEvent>
  /** Lets a run that waits for its debugger go (Runtime.runIfWaitingForDebugger); resolves with its first pause. */
  goAndPause(): Promise<PausedEvent>
  localValue(frame: CdpCallFrame, name: string): Promise<unknown>
  evaluateOnFrame(frame: CdpCallFrame, expression: string): Promise<unknown>
  /** Resolves when the socket closes (the run ended, or close()). */
  readonly closed: Promise<void>
  close(): Promise<void>
}

interface ScriptParsed {
  scriptId: string
  url: string
  sourceMapURL?: string
}

interface RawClient {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>
  on(event: string, listener: (params: never) => void): void
  close(): Promise<void>
}

const DATA_URL = /^data:application\/json;(?:charset=utf-8;)?base64,/
/** How long a CDP command may go unanswered. */
const COMMAND_WAIT_MS = 20_000

export async function connectDebugger(webSocketUrl: string): Promise<DebuggerClient> {
  const { default: CDP } = await import('chrome-remote-interface')
  // `local`: the protocol's description comes with the client, not from the target.
  const raw = (await CDP({ target: webSocketUrl, local: true })) as unknown as RawClient
  // A command the far side never answers fails the check with its name, not by the check's own timeout.
  const command = (method: string, params?: Record<string, unknown>) =>
    within(raw.send(method, params), COMMAND_WAIT_MS, `the debugger got no answer to ${method} within ${COMMAND_WAIT_MS} ms`)
  let closedNow!: () => void
  const closed = new Promise<void>((resolve) => (closedNow = resolve))
  raw.on('disconnect', () => closedNow())
  const scripts: ScriptParsed[] = []
  const scriptWaiters = new Set<() => void>()
  raw.on('Debugger.scriptParsed', (params: ScriptParsed) => {
    scripts.push(params)
    scriptWaiters.forEach((wake) => wake())
  })
  const pauses: PausedEvent[] = []
  let pauseWaiter: ((event: PausedEvent) => void) | undefined
  raw.on('Debugger.paused', (params: PausedEvent) => {
    if (pauseWaiter !== undefined) {
      const wake = pauseWaiter
      pauseWaiter = undefined
      wake(params)
    } else pauses.push(params)
  })

  const nextPause = (): Promise<PausedEvent> => {
    const queued = pauses.shift()
    if (queued !== undefined) return Promise.resolve(queued)
    return within(new Promise<PausedEvent>((resolve) => (pauseWaiter = resolve)), 20_000, 'the debugger was never paused')
  }

  const findProgram = (): DebuggedProgram | undefined => {
    for (const script of scripts) {
      if (script.sourceMapURL === undefined || !DATA_URL.test(script.sourceMapURL)) continue
      const json = Buffer.from(script.sourceMapURL.replace(DATA_URL, ''), 'base64').toString('utf8')
      const map = new TraceMap(json)
      const sourceName = map.sources[0]
      if (sourceName == null || !sourceName.startsWith('cordon:///program')) continue
      return {
        scriptId: script.scriptId,
        sourceName,
        source: map.sourcesContent?.[0] ?? '',
        map,
        userLine: (location) =>
          location.scriptId !== script.scriptId
            ? undefined
            : (originalPositionFor(map, { line: location.lineNumber + 1, column: location.columnNumber ?? 0 }).line ?? undefined),
      }
    }
    return undefined
  }

  return {
    send: command,
    async enableAndFindProgram() {
      await command('Runtime.enable')
      await command('Debugger.enable')
      const found = await within(
        new Promise<DebuggedProgram>((resolve) => {
          const look = () => {
            const program = findProgram()
            if (program === undefined) return
            scriptWaiters.delete(look)
            resolve(program)
          }
          scriptWaiters.add(look)
          look()
        }),
        20_000,
        'the debugger never saw a script with a source map of the user program',
      )
      return found
    },
    async setBreakpointAtLine(program, line) {
      const generated = generatedPositionFor(program.map, { source: program.sourceName, line, column: 0 })
      if (generated.line == null) throw new Error(`the source map has no position for line ${line} of the program`)
      await command('Debugger.setBreakpoint', {
        location: { scriptId: program.scriptId, lineNumber: generated.line - 1, columnNumber: generated.column ?? 0 },
      })
    },
    nextPause,
    async goAndPause() {
      const paused = nextPause()
      await command('Runtime.runIfWaitingForDebugger')
      return paused
    },
    async localValue(frame, name) {
      const local = frame.scopeChain.find((scope) => scope.type === 'local')?.object.objectId
      if (local === undefined) throw new Error(`the paused frame ${frame.functionName} has no local scope`)
      const { result } = (await command('Runtime.getProperties', { objectId: local, ownProperties: true })) as {
        result: { name: string; value?: { value?: unknown } }[]
      }
      const property = result.find((entry) => entry.name === name)
      if (property === undefined) throw new Error(`no local ${name} in ${result.map((entry) => entry.name).join(', ')}`)
      return property.value?.value
    },
    async evaluateOnFrame(frame, expression) {
      const answer = (await command('Debugger.evaluateOnCallFrame', { callFrameId: frame.callFrameId, expression })) as {
        result: { value?: unknown }
        exceptionDetails?: { text?: string }
      }
      if (answer.exceptionDetails !== undefined) throw new Error(`evaluating ${expression} threw: ${answer.exceptionDetails.text}`)
      return answer.result.value
    },
    closed,
    async close() {
      try {
        await within(raw.close(), COMMAND_WAIT_MS, 'the debugger socket did not close')
      } catch {
        // Closed by the other side already (or it never answers: the check's own failure says why).
      }
    },
  }
}
