// Each contender does the same work: a fresh run of `return 1 + 1`, value copied out.
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core'

export async function loadContenders() {
  const list = []

  // Raw quickjs-emscripten by hand: new runtime + context per run, the floor for our QuickJS backend.
  const variant = (await import('@jitl/quickjs-wasmfile-release-sync')).default
  const module = await newQuickJSWASMModuleFromVariant(variant)
  list.push({
    name: 'raw quickjs-emscripten',
    async run() {
      const runtime = module.newRuntime()
      runtime.setMemoryLimit(128 * 1024 * 1024)
      const context = runtime.newContext()
      const result = context.evalCode('(function () { return 1 + 1 })()')
      const value = context.dump(context.unwrapResult(result))
      context.dispose()
      runtime.dispose()
      if (value !== 2) throw new Error(`raw quickjs returned ${value}`)
    },
    async dispose() {},
  })

  const quickjs = createSandbox(createQuickJSBackend())
  list.push(sandboxContender('cordon quickjs', quickjs))

  for (const [name, pkg, factory] of [
    ['cordon ivm', '@cordon/backend-ivm', 'createIvmBackend'],
    ['cordon subprocess (warm pool)', '@cordon/backend-subprocess', 'createSubprocessBackend'],
  ]) {
    try {
      const mod = await import(pkg)
      const sandbox = createSandbox(mod[factory]())
      const probe = await sandbox.run('return 1 + 1')
      if (!probe.ok) throw new Error(`${probe.error.code}: ${probe.error.message}`)
      list.push(sandboxContender(name, sandbox))
    } catch (error) {
      list.push({ name, skipped: String(error.message ?? error).split('\n')[0] })
    }
  }
  return list
}

function sandboxContender(name, sandbox) {
  return {
    name,
    async run() {
      const r = await sandbox.run('return 1 + 1')
      if (!r.ok || r.value !== 2) throw new Error(`${name} failed: ${JSON.stringify(r.ok ? r.value : r.error)}`)
    },
    dispose: () => sandbox.dispose(),
  }
}
