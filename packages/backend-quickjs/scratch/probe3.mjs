import { newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core'
const variant = (await import('@jitl/quickjs-wasmfile-release-sync')).default
const mod = await newQuickJSWASMModuleFromVariant(variant)
function run(code, limitMb = 8) {
  const rt = mod.newRuntime()
  rt.setMemoryLimit(limitMb * 1024 * 1024)
  const ctx = rt.newContext()
  const r = ctx.evalCode(code)
  let out
  if (r.error) { out = ['ERR', ctx.dump(r.error)]; r.error.dispose() } else { out = ['OK', ctx.dump(r.value)]; r.value.dispose() }
  const h = new Uint32Array(rt.module.HEAPU8.buffer)
  const p = rt.rt.value >> 2
  console.log(JSON.stringify(out).slice(0,300), 'count', h[p+4], 'size', h[p+5], 'wasm MB', rt.module.HEAPU8.buffer.byteLength/1e6)
  const u = rt.dumpMemoryUsage().split('\n').filter(l => /memory used|memory allocated/.test(l)).join(' | ')
  console.log('  ', u)
  ctx.dispose(); rt.dispose()
}
run(`const a=[]; for (let i=0;i<200;i++) a.push('x'.repeat(1e6)+i); a.length`)
run(`const a=[]; for (let i=0;i<300;i++) a.push(new Uint8Array(1e6)); a.length`)
