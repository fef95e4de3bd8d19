import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { CpuProfile } from '@cordon/core'

/**
 * Writes a run's CPU profile to `name` (`--cpu-prof-name`), or without one to
 * `cordon-<date>-<time>-<pid>.cpuprofile` in the working directory, as Node names its own.
 * Resolves the path written.
 */
export async function writeCpuProfile(profile: CpuProfile, name: string | undefined): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  const file = path.resolve(name ?? `cordon-${stamp}-${process.pid}.cpuprofile`)
  await writeFile(file, JSON.stringify(profile))
  return file
}
