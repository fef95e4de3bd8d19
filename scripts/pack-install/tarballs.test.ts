// What `pnpm pack` produced, read straight from the tarballs: metadata, exports, declared imports.
import { readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import ts from 'typescript'
import { describe, expect, inject, it } from 'vitest'
import { packageFolder } from './global-setup.js'
import { readTarball, shipped } from './tarball.js'

const { tarballs } = inject('packInstall')
const repoUrl = 'git+https://github.com/cordon-sandbox/cordon.git'
const license = readFileSync(new URL('../../LICENSE', import.meta.url), 'utf8')

describe.each(Object.entries(tarballs))('%s tarball', (name, file) => {
  const { files, manifest, text } = readTarball(file)
  const dir = packageFolder(name)

  it('ships only dist (and dist-browser), README, CHANGELOG, package.json and the license', () => {
    expect(files.filter((f) => !shipped.test(f))).toEqual([])
    expect(files).toEqual(expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts']))
    // pnpm pack adds the workspace root's LICENSE to packages that have none; MIT asks for it.
    expect(text('LICENSE')).toBe(license)
  })

  it('has the metadata npm shows and tools read', () => {
    expect(manifest.description.length).toBeGreaterThan(30)
    expect(manifest.keywords).toEqual(expect.arrayContaining(['sandbox']))
    expect(manifest.license).toBe('MIT')
    expect(manifest.repository).toEqual({ type: 'git', url: repoUrl, directory: dir })
    expect(manifest.homepage).toBe(`https://github.com/cordon-sandbox/cordon/tree/main/${dir}#readme`)
    expect(manifest.bugs).toEqual({ url: 'https://github.com/cordon-sandbox/cordon/issues' })
    expect(manifest.engines).toEqual({ node: '>=20' })
    // None, or only exported entries whose import is their whole point (a loader hook's `./register`).
    if (manifest.sideEffects !== false) {
      const targets = Object.values(manifest.exports as Record<string, string | { default?: string }>).map((entry) =>
        typeof entry === 'string' ? entry : entry.default,
      )
      expect(Array.isArray(manifest.sideEffects) && manifest.sideEffects.length > 0).toBe(true)
      for (const file of manifest.sideEffects as string[]) expect(targets).toContain(file)
    }
    expect(manifest.type).toBe('module')
    // dist-browser: the build a bundler for the web takes, by the `browser` export condition.
    const browser = JSON.stringify(manifest.exports).includes('"browser"')
    expect(manifest.files).toEqual(browser ? ['dist', 'dist-browser', 'CHANGELOG.md'] : ['dist', 'CHANGELOG.md'])
    expect(manifest.publishConfig).toEqual({ access: 'public' })
  })

  it('imports no Node built-in from its browser build, if it has one', () => {
    const nodeImports: string[] = []
    for (const path of files.filter((f) => f.startsWith('dist-browser/') && f.endsWith('.js'))) {
      for (const { fileName } of ts.preProcessFile(text(path), true, true).importedFiles) {
        if (fileName.startsWith('node:') || builtinModules.includes(fileName)) nodeImports.push(`${path}: ${fileName}`)
      }
    }
    expect(nodeImports).toEqual([])
  })

  it('has no workspace: ranges left', () => {
    expect(JSON.stringify(manifest)).not.toContain('workspace:')
  })

  it('exports types first, and every exported file is in the tarball', () => {
    for (const [subpath, target] of Object.entries<string | Record<string, string>>(manifest.exports)) {
      if (typeof target === 'string') {
        expect(files, subpath).toContain(target.replace(/^\.\//, ''))
        continue
      }
      expect(Object.keys(target)[0], subpath).toBe('types')
      for (const path of Object.values(target)) expect(files, `${subpath} → ${path}`).toContain(path.replace(/^\.\//, ''))
    }
  })

  it('imports only what it declares: dependencies, peers, optional dependencies, Node built-ins', () => {
    const declared = new Set([
      name,
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
    ])
    const undeclared: string[] = []
    for (const path of files.filter((f) => /\.(js|d\.ts)$/.test(f))) {
      // TypeScript's scanner: string-literal imports and import() only, never comments or strings.
      for (const { fileName } of ts.preProcessFile(text(path), true, true).importedFiles) {
        if (fileName.startsWith('.') || fileName.startsWith('node:') || builtinModules.includes(fileName)) continue
        const pkg = fileName
          .split('/')
          .slice(0, fileName.startsWith('@') ? 2 : 1)
          .join('/')
        if (!declared.has(pkg)) undeclared.push(`${path}: ${fileName}`)
      }
    }
    expect(undeclared).toEqual([])
  })
})
