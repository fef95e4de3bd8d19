import type { CpuProfile } from '@cordon/core'

/** The profile's frames of the function named `name`. */
export function hotFunctionFrames(profile: CpuProfile, name: string): CpuProfile['nodes'] {
  return profile.nodes.filter((node) => node.callFrame.functionName === name)
}
