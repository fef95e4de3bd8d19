// One contender's first contact, in a fresh Node process (see cold-runner.mjs): import the
// package, make what a first run needs, run `1 + 2`, print the value as the first stdout line,
// then clean up as a user's script would and let the process end on its own.
//   node [flags] src/cold-child.mjs <contender-id>
// Each entry imports only its own packages (inside the function), so no row pays for another's.
// `print(value, note)` writes `<value>` or `<value> <note>` as one line.

const CORDON_OPTIONS = { timeoutMs: 60_000 }

function print(value, note) {
  process.stdout.write(`${JSON.stringify(value)}${note === undefined ? '' : ` ${note}`}\n`)
}

/** A cordon run's value, or its error. */
function valueOf(r) {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`)
  return r.value
}

/** `createSandbox(factory())` from @cordon/core: one run, print, dispose. */
async function cordonFirstRun(pkg, factoryName) {
  const { createSandbox } = await import('@cordon/core')
  const factory = (await import(pkg))[factoryName]
  const sandbox = createSandbox(factory())
  try {
    print(valueOf(await sandbox.run('1 + 2', CORDON_OPTIONS)))
  } finally {
    await sandbox.dispose()
  }
}

const FIRST_CONTACT = {
  'cordon-quickjs-cold': () => cordonFirstRun('@cordon/backend-quickjs', 'createQuickJSBackend'),
  'cordon-ivm-cold': () => cordonFirstRun('@cordon/backend-ivm', 'createIvmBackend'),
  'cordon-subprocess-cold': () => cordonFirstRun('@cordon/backend-subprocess', 'createSubprocessBackend'),
  'cordon-select-cold': async () => {
    const { createSandbox } = await import('@cordon/select')
    const sandbox = await createSandbox()
    try {
      const r = await sandbox.run('1 + 2', CORDON_OPTIONS)
      // The backend @cordon/select chose goes into the row's note.
      print(valueOf(r), r.stats.backend)
    } finally {
      await sandbox.dispose()
    }
  },
  'peer-run-cold': async () => {
    const { run } = await import('run')
    const r = await run({ source: 'return 1 + 2' })
    if (r.status !== 'completed') throw new Error(`run: status ${r.status}`)
    print(r.value)
  },
  'peer-sebastianwessel-cold': async () => {
    // The same QuickJS build as the warm peer row (contenders/peer-quickjs.mjs).
    const { loadQuickJs } = await import('@sebastianwessel/quickjs')
    const variant = (await import('@jitl/quickjs-wasmfile-release-sync')).default
    const { runSandboxed } = await loadQuickJs(variant)
    const r = await runSandboxed(async ({ evalCode }) => evalCode('export default 1 + 2'))
    if (!r.ok) throw new Error(`${r.error.name}: ${r.error.message}`)
    print(r.data)
  },
  'raw-quickjs-wasi-cold': async () => {
    const { QuickJS } = await import('quickjs-wasi')
    const { readFile } = await import('node:fs/promises')
    const { createRequire } = await import('node:module')
    // The package leaves loading its .wasm to the caller: read from disk, as its docs suggest on Node.
    const wasm = await readFile(createRequire(import.meta.url).resolve('quickjs-wasi/quickjs.wasm'))
    const vm = await QuickJS.create({ wasm })
    try {
      const handle = vm.evalCode('1 + 2')
      try {
        print(vm.dump(handle))
      } finally {
        handle.dispose()
      }
    } finally {
      vm.dispose()
    }
  },
}

const id = process.argv[2]
if (FIRST_CONTACT[id] === undefined) {
  console.error(`cold-child: no contender ${id}`)
  process.exitCode = 2
} else {
  try {
    await FIRST_CONTACT[id]()
  } catch (error) {
    // One line for the row's reason (cold-runner.mjs shows the end of stderr).
    const firstLines = String(error?.stack ?? error)
      .split('\n')
      .slice(0, 2)
      .join(' ')
    console.error(`cold-child ${id}: ${firstLines}`)
    process.exit(1)
  }
}
