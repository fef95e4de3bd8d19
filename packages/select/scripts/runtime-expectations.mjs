// What runtime-smoke.mjs must report on each runtime. Each check is { name, ok, detail }.
// Availability is what the probes found; these expectations are what we know to be true
// of each runtime (RUNTIMES.md), so a regression in a backend or in select shows up here.

/** Reasons that show select explained an isolated-vm failure instead of passing it on raw. */
const EXPLAINED_IVM_ON_NODE = /NODE_MODULE_VERSION|no prebuilt isolated-vm|isolated-vm is not installed|--no-node-snapshot/

export function checkSmoke(plan, result) {
  const checks = []
  const check = (name, ok, detail = '') => checks.push({ name, ok: Boolean(ok), detail })
  const { diagnosis, chosen, forced } = result
  const byName = Object.fromEntries(diagnosis.candidates.map((c) => [c.name, c]))
  const runtime = diagnosis.runtime

  check('runtime kind detected', runtime.kind === plan.kind, `expected ${plan.kind}, got ${runtime.kind} ${runtime.version}`)
  if (plan.kind === 'node') {
    check('node version', Number(runtime.version.split('.')[0]) === plan.major, `expected ${plan.major}, got ${runtime.version}`)
    check('--no-node-snapshot seen', runtime.noNodeSnapshot === !plan.withoutSnapshotFlag, `noNodeSnapshot=${runtime.noNodeSnapshot}`)
  }
  check(
    'all three candidates reported',
    ['subprocess', 'quickjs', 'ivm'].every((n) => byName[n]),
    Object.keys(byName).join(','),
  )
  for (const c of diagnosis.candidates) {
    if (c.available) continue
    check(`${c.name}: unavailable with reason and fix`, c.reason && c.fix, JSON.stringify(c))
    check(`${c.name}: not broken`, c.status !== 'broken', `${c.status}: ${c.reason}`)
  }

  check('quickjs available', byName.quickjs?.available, byName.quickjs && `${byName.quickjs.status}: ${byName.quickjs.reason}`)
  // On Bun and Deno the children run on the `node` found on PATH; the matrix always has one.
  check(
    'subprocess available',
    byName.subprocess?.available,
    byName.subprocess && `${byName.subprocess.status}: ${byName.subprocess.reason}`,
  )
  const ivm = byName.ivm
  if (plan.kind === 'node') {
    if (plan.withoutSnapshotFlag) {
      check(
        'ivm refused without --no-node-snapshot',
        !ivm.available && /--no-node-snapshot|NODE_MODULE_VERSION|isolated-vm is not installed/.test(ivm.reason),
        ivm.reason,
      )
    } else {
      check('ivm available or explained', ivm.available || EXPLAINED_IVM_ON_NODE.test(ivm.reason), `${ivm.status}: ${ivm.reason}`)
    }
  } else {
    const name = plan.kind === 'bun' ? 'Bun' : 'Deno'
    const explained = new RegExp(`native addon for Node\\.js; ${name} .* cannot load it`)
    check(`ivm unavailable on ${name} with the real reason`, !ivm.available && explained.test(ivm.reason), `${ivm.status}: ${ivm.reason}`)
    check(`ivm fix on ${name} points to quickjs`, /quickjs/.test(ivm.fix ?? ''), ivm.fix)
  }

  const strongest = diagnosis.candidates.filter((c) => c.available).sort((a, b) => a.rank - b.rank)[0]
  check(
    'the strongest available backend is chosen',
    diagnosis.chosen === strongest?.name,
    `chose ${diagnosis.chosen}, strongest ${strongest?.name}`,
  )
  check('createSandbox() runs a program with a tool', chosen.ok && chosen.value === '1,2', JSON.stringify(chosen))
  check('it ran on the chosen backend', chosen.backend === diagnosis.chosen, `${chosen.backend} vs ${diagnosis.chosen}`)
  for (const [name, r] of Object.entries(forced)) {
    check(`createSandbox({ backend: '${name}' }) runs the program`, r.ok && r.value === '1,2' && r.backend === name, JSON.stringify(r))
  }
  const { preemption } = result
  if (preemption !== undefined) {
    // Worker-mode QuickJS: the host's timers fire while a guest spins, and an abort ends a spin at
    // once. Bounds are loose (a held thread gives 0 ticks and waits for the 10 s deadline).
    check(
      'quickjs: the event loop turns while a guest spins',
      preemption.spinCode === 'TIMEOUT' && preemption.ticks >= 20,
      JSON.stringify(preemption),
    )
    check(
      'quickjs: abort ends a spinning guest',
      preemption.abortCode === 'ABORTED' && preemption.abortMs < 2_000,
      JSON.stringify(preemption),
    )
  }
  const fetched = result.fetch
  if (fetched !== undefined) {
    // cordon loads undici's own entry file, so Bun runs the real undici (not its stand-in) too.
    const [literal, localhost] = Array.isArray(fetched) ? fetched : []
    check('fetch: reaches a loopback server named in allow', literal === 200, JSON.stringify(fetched))
    check('fetch: localhost (a name resolving inside) refused', /refused address/.test(localhost), JSON.stringify(fetched))
  }
  return checks
}
