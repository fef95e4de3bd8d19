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
  console.log(JSON.stringify(out).slice(0,300), 'count', h[p+4], 'size', h[p+5], 'wasm', rt.module.HEAPU8.buffer.byteLength/1e6)
  ctx.dispose(); rt.dispose()
}
run(`const a=[]; for (let i=0;i<40;i++) a.push('x'.repeat(1e6)+i); a.length`)
run(`const a=[]; for (let i=0;i<40;i++) a.push(new ArrayBuffer(1e6)); a.length`)
run(`const a=[]; for (let i=0;i<1e6;i++) a.push({i}); a.length`)
run(`let n=0; try { const a=[]; for (let i=0;i<1e7;i++) a.push({i}); } catch (e) { n = e.name + ':' + e.message } n`)
run(`let s='x'; try { while(true) s = s + s } catch (e) { s = e.name + e.message } s`)
run(`new ArrayBuffer(1e9).byteLength`)
run(`function f(n){return f(n+1)+1}; f(0)`)
