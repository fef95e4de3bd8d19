// isolated-vm 5 installs with prebuild-install, which downloads a prebuilt binary from isolated-vm's
// GitHub releases and compiles from source when it cannot (several minutes of both cores on a slow
// 2-core VM). CI reaches only the npm registry, so every run compiled it twice: once for the
// workspace, once for the consumer project. This mirror serves the binary the workspace built, as
// a release asset named the way prebuild-install asks for it, so the consumer's install takes the
// path a user's takes (download, unpack, load the addon) instead of compiling it again.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

export interface IsolatedVmMirror {
  /** For `npm_config_isolated_vm_binary_host_mirror`. */
  url: string
  close(): Promise<void>
}

/** Undefined when the workspace has no isolated-vm 5 build for this Node (then npm compiles, as before). */
export async function startIsolatedVmMirror(repo: string, root: string): Promise<IsolatedVmMirror | undefined> {
  let packageDir: string
  try {
    const require = createRequire(join(repo, 'packages', 'backend-ivm', 'package.json'))
    packageDir = dirname(require.resolve('isolated-vm-5/package.json'))
  } catch {
    return undefined
  }
  const { version, binary } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    version: string
    binary?: { module_path?: string }
  }
  const addon = join(binary?.module_path ?? 'build/Release', 'isolated_vm.node')
  if (!existsSync(join(packageDir, addon))) return undefined
  // prebuild-install's name for a release asset; glibc Linux has no libc suffix.
  const asset = `/v${version}/isolated-vm-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
  const file = join(root, 'isolated-vm-mirror', asset)
  mkdirSync(dirname(file), { recursive: true })
  execFileSync('tar', ['-czf', file, '-C', packageDir, addon])
  const body = readFileSync(file)
  const server = createServer((request, response) => {
    if (request.method === 'GET' && request.url === asset) response.writeHead(200, { 'content-type': 'application/gzip' }).end(body)
    else response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
