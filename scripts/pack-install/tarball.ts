// Reads a .tgz without extracting it: file names, sizes, contents and the packed package.json.
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'

/** What a package may publish: its build, its README and CHANGELOG, package.json, the license. */
export const shipped = /^(dist\/.+|dist-browser\/.+|README\.md|CHANGELOG\.md|package\.json|LICENSE)$/

export interface TarballInfo {
  /** Paths inside the package, sorted (`dist/index.js`, `package.json`, …). */
  files: string[]
  unpackedBytes: number
  manifest: PackageManifest
  text(file: string): string
}

export function readTarball(path: string): TarballInfo {
  const tar = gunzipSync(readFileSync(path))
  const contents = new Map<string, Buffer>()
  const field = (start: number, length: number) => tar.toString('utf8', start, start + length).replace(/\0.*$/s, '')
  // ustar: 512-byte header (name at 0, octal size at 124, type at 156, prefix at 345), data in 512-byte blocks.
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0;) {
    const prefix = field(at + 345, 155)
    const name = (prefix ? `${prefix}/` : '') + field(at, 100)
    const size = parseInt(field(at + 124, 12).trim() || '0', 8)
    const type = field(at + 156, 1)
    if (type === '0' || type === '') contents.set(name.replace(/^package\//, ''), tar.subarray(at + 512, at + 512 + size))
    at += 512 + Math.ceil(size / 512) * 512
  }
  const text = (file: string) => {
    const data = contents.get(file)
    if (!data) throw new Error(`${path} has no ${file}`)
    return data.toString('utf8')
  }
  return {
    files: [...contents.keys()].sort(),
    unpackedBytes: [...contents.values()].reduce((sum, data) => sum + data.length, 0),
    manifest: JSON.parse(text('package.json')),
    text,
  }
}

/** The fields of a packed package.json the tests read; the rest are checked as plain values. */
export interface PackageManifest {
  name: string
  description: string
  exports: Record<string, string | Record<string, string>>
  [field: string]: unknown
}
