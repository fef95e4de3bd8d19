/**
 * The playground page: type a program, run it in cordon's QuickJS backend (engines in Web
 * Workers), watch its logs and tool calls stream in, get its value or its typed error. The page's
 * own timer keeps counting while a guest spins: the guest never runs on this thread.
 */
import { createSandbox, type RunEvent, type RunResult } from '@cordon/core'
import { selectBackend } from '@cordon/select'
import { DECLARATIONS, DEMO_TOOLS, EXAMPLE_PROGRAM } from './demo-tools.js'

// @cordon/select picks the backend that works here (QuickJS, in a browser) and says why.
const selection = selectBackend()
const sandbox = selection.then(({ backend }) => createSandbox(backend, { maxToolCalls: 1_000 }))

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
const program = element<HTMLTextAreaElement>('program')
const run = element<HTMLButtonElement>('run')
const stop = element<HTMLButtonElement>('stop')
const timeout = element<HTMLInputElement>('timeout')
const status = element<HTMLSpanElement>('status')
const events = element<HTMLOListElement>('events')
const result = element<HTMLPreElement>('result')
const ticks = element<HTMLSpanElement>('ticks')

void selection.then(({ name, report }) => {
  const backends = element<HTMLUListElement>('backends')
  for (const candidate of report.candidates) {
    const item = document.createElement('li')
    item.className = candidate.name === name ? 'chosen' : ''
    item.textContent = `${candidate.name}: ${candidate.name === name ? 'chosen — ' : ''}${candidate.reason}`
    backends.append(item)
  }
})

program.value = EXAMPLE_PROGRAM
element<HTMLPreElement>('declarations').textContent = DECLARATIONS
let count = 0
setInterval(() => (ticks.textContent = String(++count)), 100)

let controller: AbortController | undefined

function show(event: RunEvent): void {
  if (event.type === 'result') return
  const item = document.createElement('li')
  const at = `${event.atMs.toFixed(0).padStart(5)} ms  `
  if (event.type === 'log') {
    item.className = event.level
    item.textContent = `${at}${event.level === 'log' ? '' : `${event.level}: `}${event.message}`
  } else {
    item.className = 'tool'
    const what =
      event.type === 'tool-start' ? 'called' : event.type === 'tool-end' ? `answered in ${event.durationMs.toFixed(0)} ms` : 'failed'
    item.textContent = `${at}${event.tool} ${what}`
  }
  events.append(item)
  events.scrollTop = events.scrollHeight
}

function describe(outcome: RunResult): string {
  if (outcome.ok) return JSON.stringify(outcome.value, null, 2) ?? 'undefined'
  const { code, name, message, line } = outcome.error
  return `${code}${name === undefined ? '' : ` (${name})`}${line === undefined ? '' : ` at line ${line}`}\n${message}`
}

async function runProgram(): Promise<void> {
  controller = new AbortController()
  run.disabled = true
  stop.disabled = false
  events.replaceChildren()
  result.textContent = ''
  result.className = ''
  status.textContent = 'running…'
  const outcome = await (
    await sandbox
  ).run(program.value, {
    tools: DEMO_TOOLS,
    timeoutMs: Number(timeout.value) || 2_000,
    signal: controller.signal,
    onEvent: show,
  })
  result.textContent = describe(outcome)
  result.className = outcome.ok ? 'ok' : 'failed'
  status.textContent = `${outcome.ok ? 'done' : outcome.error.code} in ${outcome.stats.wallMs.toFixed(1)} ms`
  run.disabled = false
  stop.disabled = true
}

run.addEventListener('click', () => void runProgram())
stop.addEventListener('click', () => controller?.abort())
