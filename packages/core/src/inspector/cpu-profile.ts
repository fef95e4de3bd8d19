/**
 * CPU profiles in the `.cpuprofile` format Chrome DevTools, VS Code and speedscope load (the
 * Chrome DevTools Protocol's `Profiler.Profile`), with the guest program's frames moved to the
 * positions the user wrote.
 */
import { toUserPosition, type NormalizedProgram } from '../normalize/index.js'

export interface CpuProfileCallFrame {
  functionName: string
  scriptId: string
  url: string
  /** 0-based. */
  lineNumber: number
  /** 0-based. */
  columnNumber: number
}

export interface CpuProfileNode {
  id: number
  callFrame: CpuProfileCallFrame
  hitCount?: number
  children?: number[]
  positionTicks?: { line: number; ticks: number }[]
}

/** Write it to a `.cpuprofile` file with `JSON.stringify` and open it in DevTools (Performance panel). */
export interface CpuProfile {
  nodes: CpuProfileNode[]
  /** Microseconds, on the engine's clock. */
  startTime: number
  endTime: number
  /** The node sampled each time (ids). */
  samples?: number[]
  /** Microseconds between samples. */
  timeDeltas?: number[]
}

/**
 * Frames of the program's script (compiled as `filename`) move to the lines and columns of the
 * program's code (what its Markdown fence held, if any) and are named `sourceName`; a frame on the
 * wrapper's own line is the program itself, at its start.
 */
export function toUserProfile(profile: CpuProfile, program: NormalizedProgram, filename: string, sourceName: string): CpuProfile {
  const nodes = profile.nodes.map((node) => {
    const frame = node.callFrame
    if (frame.url !== filename) return node
    const user = toUserPosition(program, frame.lineNumber + 1, frame.columnNumber + 1)
    // Lines of the program's code (inside its fence, if any), as the debugger shows them.
    const lineNumber = user === undefined ? 0 : frame.lineNumber - 1
    const columnNumber = user?.column === undefined ? 0 : user.column - 1
    const moved: CpuProfileNode = { ...node, callFrame: { ...frame, url: sourceName, lineNumber, columnNumber } }
    if (node.positionTicks !== undefined) {
      moved.positionTicks = node.positionTicks.map(({ line, ticks }) => ({ line: Math.max(1, line - 1), ticks }))
    }
    return moved
  })
  return { ...profile, nodes }
}
