import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { CpuProfile } from '@cordon/core'

/**
 * Writes a run's CPU profile where `--cpu-prof` says (a file name), or, given no name, to
 * `cordon-<date>-<time>-<pid>.cpuprofile` in the working directory, as Node names its own.
 * Resolves the path written.
 */
export async function writeCpuProfile(profile: CpuProfile, target: string | true): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  const file = target === true ? path.resolve(`cordon-${stamp}-${process.pid}.cpuprofile`) : path.resolve(target)
  await writeFile(file, JSON.stringify(profile))
  return file
}
