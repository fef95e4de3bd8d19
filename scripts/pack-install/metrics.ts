// Sizes and install times, gathered across test files and printed once at the end.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export function writeMetric(root: string, key: string, data: Record<string, unknown>): void {
  mkdirSync(join(root, 'metrics'), { recursive: true })
  writeFileSync(join(root, 'metrics', `${key.replace(/[^\w.-]+/g, '_')}.json`), JSON.stringify(data))
}

const kB = (bytes: unknown) => `${(Number(bytes) / 1024).toFixed(1)} kB`

export function printMetrics(root: string): void {
  const dir = join(root, 'metrics')
  if (!existsSync(dir)) return
  const all = readdirSync(dir)
    .sort()
    .map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')))
  const lines = ['pack-install: packed tarballs']
  for (const m of all.filter((m) => 'packedBytes' in m)) {
    lines.push(`  ${m.package}: ${kB(m.packedBytes)} packed, ${kB(m.unpackedBytes)} unpacked, ${m.files} files`)
  }
  lines.push('pack-install: fresh projects (npm install)')
  for (const m of all.filter((m) => 'installSeconds' in m)) {
    lines.push(
      `  ${m.project} [${m.packages.join(', ')}]: ${m.installSeconds} s, node_modules ${(m.nodeModulesBytes / 2 ** 20).toFixed(1)} MB`,
    )
  }
  console.log(lines.join('\n'))
}
