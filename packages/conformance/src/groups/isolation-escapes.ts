import type { RunOptions, ToolSet } from '@cordon/core'
import { expectNoEscape } from '../harness/escape.js'
import { GUEST_WALK_SOURCE } from '../harness/guest-snippets.js'
import type { ConformanceCheck } from '../types.js'

function escape(name: string, body: string, options?: () => RunOptions): ConformanceCheck {
  return {
    group: 'isolation',
    name: `escape: ${name}`,
    async run({ sandbox }) {
      await expectNoEscape(sandbox, body, options?.())
    },
  }
}

const reached = (list: string) => `return [${list}].filter(Boolean).join('; ')`

function escapeTools(): ToolSet {
  return {
    'ns.tool': { execute: () => ({ list: [1], map: new Map([[1, 2]]), when: new Date(0), err: new Error('e'), bytes: new Uint8Array(2) }) },
    'ns.fail': { execute: () => Promise.reject(new Error('tool failed')) },
    'ns.typed': { inputSchema: { type: 'string' }, execute: () => 1 },
  }
}

/** Collects CallSite receivers and functions from several places and tries to escape through them. */
const CALLSITE_BODY = `
const found = []
const inspect = (label) => {
  const saved = Error.prepareStackTrace
  let frames
  try {
    Error.prepareStackTrace = (_, sites) => sites
    frames = new Error('probe').stack
  } catch (e) {}
  Error.prepareStackTrace = saved
  if (!Array.isArray(frames)) return
  for (const frame of frames) {
    for (const method of ['getThis', 'getFunction', 'getEvalOrigin']) {
      try {
        const value = frame[method]()
        const r = typeof value === 'object' || typeof value === 'function' ? __escape(value) : ''
        if (r) found.push(label + ' ' + method + ': ' + r)
      } catch (e) {}
    }
  }
}
function sloppyCaller() {
  try { const c = sloppyCaller.caller; if (c) { const r = __escape(c); if (r) found.push('caller: ' + r) } } catch (e) {}
  inspect('callback')
}
inspect('top level')
await new Promise((resolve) => setTimeout(() => { sloppyCaller(); inspect('timer'); resolve() }, 1))
await ns.tool().then(() => { sloppyCaller(); inspect('tool then') })
try { await ns.fail() } catch (e) { inspect('tool catch') }
await new Promise((resolve) => queueMicrotask(() => { sloppyCaller(); inspect('microtask'); resolve() }))
console.log({ toString() { inspect('log toString'); return 'x' } })
try { await ns.tool({ toJSON() { inspect('toJSON'); return 1 } }) } catch (e) {}
Error.prepareStackTrace = (error, sites) => { for (const s of sites) { try { const r = __escape(s.getThis()) || __escape(s.getFunction()); if (r) found.push('late ' + r) } catch (e) {} } return 'stack' }
try { await ns.fail() } catch (e) { String(e.stack) }
return found.join('; ')
`

/** Walks everything reachable from the guest's global object (three levels deep). */
const SWEEP_BODY = `${GUEST_WALK_SOURCE}
const found = []
__walk(globalThis, 'globalThis', 3, (value, path) => {
  const r = __escape(value, true)
  if (r) found.push(path + ': ' + r)
})
return found.join('; ')
`

export const escapeChecks: ConformanceCheck[] = [
  escape(
    'this / globalThis / plain values → constructor.constructor',
    reached(
      '__escape(this), __escape(globalThis), __escape({}), __escape([]), __escape(() => 1), __escape(async () => 1), __escape(Object), __escape(Symbol)',
    ),
  ),
  escape('console.log.constructor.constructor', reached('__escape(console), __escape(console.log), __escape(console.error)')),
  escape('a tool function and its namespace', reached('__escape(ns), __escape(ns.tool), __escape(ns.fail)'), () => ({
    tools: escapeTools(),
  })),
  escape('the promise of a tool call', 'const p = ns.tool()\nconst r = __escape(p) || __escape(p.then)\nawait p\nreturn r', () => ({
    tools: escapeTools(),
  })),
  escape(
    'objects returned by tools',
    "const r = await ns.tool()\nreturn [r, r.list, r.map, r.when, r.err, r.bytes].map((v) => __escape(v)).filter(Boolean).join('; ')",
    () => ({ tools: escapeTools() }),
  ),
  escape(
    'a caught tool error and a caught schema TypeError',
    "const out = []\ntry { await ns.fail() } catch (e) { out.push(__escape(e)) }\ntry { await ns.typed(1) } catch (e) { out.push(__escape(e)) }\nreturn out.filter(Boolean).join('; ')",
    () => ({ tools: escapeTools() }),
  ),
  escape(
    'setTimeout, setInterval, clearTimeout, queueMicrotask',
    reached('__escape(setTimeout), __escape(setInterval), __escape(clearTimeout), __escape(queueMicrotask)'),
  ),
  escape('values passed in globals', reached('__escape(g), __escape(g.list), __escape(g.map), __escape(g.when), __escape(g.err)'), () => ({
    globals: { g: { list: [1], map: new Map(), when: new Date(0), err: new TypeError('t') } },
  })),
  escape('everything reachable from the guest global', SWEEP_BODY, () => ({ tools: escapeTools(), globals: { g: { list: [1] } } })),
  escape('Error.prepareStackTrace and CallSite getThis/getFunction', CALLSITE_BODY, () => ({ tools: escapeTools() })),
  escape(
    'an error thrown by a guest getter during serialization',
    "const out = []\nconst probe = { get x() { out.push(__escape(new Error('in getter'))); return 1 } }\ntry { await ns.tool(probe) } catch (e) { out.push(__escape(e)) }\nreturn out.filter(Boolean).join('; ')",
    () => ({ tools: escapeTools() }),
  ),
]
