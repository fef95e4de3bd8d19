import { afterEach, describe, expect, it, vi } from 'vitest'
import { diagnose } from '../src/index.js'
import { fakeCandidate, unavailableCandidate } from './support/fake-candidates.js'

afterEach(() => {
  vi.unstubAllGlobals()
})

/** Runs diagnose() on one candidate named `name` whose engine reports `message`. */
async function explain(message: string, name = 'ivm') {
  const { candidate } = unavailableCandidate(name, 1, message)
  const d = await diagnose({ candidates: [candidate], env: {} })
  const report = d.candidates[0]!
  expect(report).toMatchObject({ available: false, status: 'unusable' })
  return { reason: report.reason, fix: report.fix }
}

const ABI_MISMATCH =
  "The module '/app/node_modules/.pnpm/isolated-vm@5.0.4/node_modules/isolated-vm/out/isolated_vm.node'\n" +
  'was compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\n' +
  'NODE_MODULE_VERSION 147. Please try re-compiling or re-installing'

describe('failures become a reason and a fix', () => {
  it('isolated-vm built for another Node ABI', async () => {
    const { reason, fix } = await explain(`isolated-vm could not be loaded (${ABI_MISMATCH})`)
    expect(reason).toMatch(/^isolated-vm 5\.0\.4 is built for NODE_MODULE_VERSION 115, this is 147 \(Node \d+/)
    expect(fix).toMatch(/^install isolated-vm@7 \(npm install isolated-vm@7\); with pnpm also allow its build script/)
  })

  it("the ivm backend's own summary of an ABI mismatch", async () => {
    const { reason, fix } = await explain(
      'isolated-vm could not be loaded (isolated-vm: not installed; isolated-vm-6: not installed; isolated-vm-5: built for another Node version (module version 115, this runtime needs 127)). Fix: on Node 22 install isolated-vm@6.2.0',
    )
    expect(reason).toMatch(/^isolated-vm 5\.x is built for NODE_MODULE_VERSION 115, this is 127/)
    expect(fix).toMatch(/^install isolated-vm@6 /)
  })

  it('no prebuilt binary', async () => {
    const { reason, fix } = await explain(
      'isolated-vm could not be loaded (No native build was found for platform=linux arch=x64 runtime=node abi=137 uv=1 libc=glibc node=24.1.0)',
    )
    expect(reason).toMatch(/^no prebuilt isolated-vm binary fits Node .* on \w+-\w+, and none was built from source$/)
    expect(fix).toMatch(/^npm install isolated-vm@7 \(building from source needs python3, make and a C\+\+ compiler\)/)
  })

  it('missing --no-node-snapshot', async () => {
    const { reason, fix } = await explain(
      'isolated-vm needs Node 22.1.0 to be started with --no-node-snapshot. Fix: run `node --no-node-snapshot app.js`',
    )
    expect(reason).toMatch(/^isolated-vm needs Node .* to be started with --no-node-snapshot$/)
    expect(fix).toBe('run node with --no-node-snapshot (or set NODE_OPTIONS=--no-node-snapshot)')
  })

  it('isolated-vm not installed at all', async () => {
    const { reason, fix } = await explain(
      'isolated-vm could not be loaded (isolated-vm: not installed; isolated-vm-6: not installed; isolated-vm-5: not installed). Fix: …',
    )
    expect(reason).toBe('isolated-vm is not installed (an optional dependency of @cordon/backend-ivm that was skipped or failed to build)')
    expect(fix).toMatch(/^npm install isolated-vm@\d/)
  })

  it('isolated-vm on Bun: the runtime, not a version, is the reason', async () => {
    vi.stubGlobal('Bun', { version: '1.3.0' })
    const { reason, fix } = await explain(
      'isolated-vm could not be loaded (isolated-vm: the native module does not fit this runtime (undefined symbol: _ZN2v815ValueSerializer8Delegate)). Fix: isolated-vm runs on Node.js only',
    )
    expect(reason).toBe(
      'isolated-vm is a native addon for Node.js; Bun 1.3.0 cannot load it (isolated-vm could not be loaded (isolated-vm: the native module does not fit this runtime (undefined symbol: _ZN2v815ValueSerializer8Delegate)))',
    )
    expect(fix).toBe('use the quickjs backend on Bun (npm install @cordon/backend-quickjs)')
  })

  it('isolated-vm on Deno', async () => {
    vi.stubGlobal('Deno', { version: { deno: '2.1.0' } })
    const { reason, fix } = await explain('isolated-vm could not be loaded (isolated-vm: Cannot read properties of undefined)')
    expect(reason).toMatch(/^isolated-vm is a native addon for Node.js; Deno 2.1.0 cannot load it/)
    expect(fix).toBe('use the quickjs backend on Deno (npm install @cordon/backend-quickjs)')
  })

  it('child processes denied', async () => {
    const { reason, fix } = await explain('could not start a child: spawn EACCES', 'subprocess')
    expect(reason).toBe('this process may not start child processes (could not start a child: spawn EACCES)')
    expect(fix).toBe('allow child processes for this process, or use quickjs')
    vi.stubGlobal('Deno', { version: { deno: '2.1.0' } })
    const deno = await explain('Requires run access to "node", run again with the --allow-run flag', 'subprocess')
    expect(deno.fix).toMatch(/^run deno with --allow-run/)
  })

  it('a thrown ERR_ACCESS_DENIED from the factory', async () => {
    const error = Object.assign(new Error('Access to this API has been restricted'), { code: 'ERR_ACCESS_DENIED' })
    const d = await diagnose({ candidates: [fakeCandidate('subprocess', 1, { factoryError: error }).candidate], env: {} })
    expect(d.candidates[0]).toMatchObject({
      status: 'unusable',
      reason: expect.stringMatching(/^this process may not start child processes/),
    })
  })

  it('any other message with the backend\'s own "Fix:" advice is split in two', async () => {
    const { reason, fix } = await explain('the engine needs 64-bit WebAssembly. Fix: upgrade the runtime', 'other')
    expect(reason).toBe('the engine needs 64-bit WebAssembly')
    expect(fix).toBe('upgrade the runtime')
  })

  it('anything else is passed on word for word, with a generic fix', async () => {
    const { reason, fix } = await explain('something odd happened', 'other')
    expect(reason).toBe('something odd happened')
    expect(fix).toBe("see @fake/backend-other's README for what it needs, or remove it with CORDON_DISABLE=other")
  })
})

describe('in a browser (the browser build)', () => {
  it('a page or a worker of one is a browser, not an unknown runtime', async () => {
    const { runtimeFactsOf, runtimeLabel } = await import('../src/runtime-facts.js')
    expect(runtimeFactsOf({ document: {} })).toMatchObject({ kind: 'browser' })
    expect(runtimeFactsOf({ importScripts: () => undefined })).toMatchObject({ kind: 'browser' })
    expect(runtimeLabel(runtimeFactsOf({ document: {} }))).toBe('this browser')
    // Node in a test environment that fakes a document (jsdom) is still Node.
    expect(runtimeFactsOf({ document: {}, process: { versions: { node: '20.0.0' } } })).toMatchObject({ kind: 'node' })
  })

  it('the backends that need Node are reported unusable with why, without importing them', async () => {
    const { builtinImport } = await import('../src/builtin-imports.browser.js')
    const candidates = ['subprocess', 'ivm'].map((name, index) => {
      const module = `@cordon/backend-${name}`
      return { name, rank: index + 1, module, factory: 'unused', install: `npm install ${module}`, load: builtinImport(module)! }
    })
    const d = await diagnose({ candidates, env: {} })
    expect(d.candidates.map(({ status, reason, fix }) => ({ status, reason, fix }))).toEqual([
      {
        status: 'unusable',
        reason: '@cordon/backend-subprocess cannot run in a browser: it runs programs in child processes of Node.js',
        fix: 'in a browser, use the quickjs backend (npm install @cordon/backend-quickjs)',
      },
      {
        status: 'unusable',
        reason: '@cordon/backend-ivm cannot run in a browser: it runs programs in isolated-vm, a native addon for Node.js',
        fix: 'in a browser, use the quickjs backend (npm install @cordon/backend-quickjs)',
      },
    ])
    expect(builtinImport('@cordon/backend-quickjs')).toBeTypeOf('function')
    expect(builtinImport('@acme/other-backend')).toBeUndefined()
  })
})
