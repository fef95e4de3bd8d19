import { painter, wantsColor } from './colors.js'
import { EXIT } from './exit-codes.js'
import { formatDiagnosis } from './format-doctor.js'
import { restartWithNoNodeSnapshot, shouldRestartForIvm } from './no-node-snapshot.js'
import { writeStdout } from './output.js'
import { reportFailure } from './report-failure.js'

export interface DoctorFlags {
  json?: boolean
}

/**
 * `cordon doctor`: probes every backend, as `cordon run` would see them (ivm included: the
 * CLI restarts Node with --no-node-snapshot for it), and says what each protects and costs
 * here. Exit 0 when at least one works.
 */
export async function doctorCommand(flags: DoctorFlags): Promise<number> {
  if (shouldRestartForIvm()) return restartWithNoNodeSnapshot()
  const json = flags.json === true
  try {
    const { diagnose } = await import('@cordon/select')
    // A second or so per backend: what each choice costs is half of what doctor is asked.
    const report = await diagnose({ measure: true })
    if (json) writeStdout(JSON.stringify(report, null, 2))
    else for (const line of formatDiagnosis(report, painter(wantsColor(process.stdout)))) writeStdout(line)
    return report.candidates.some((c) => c.available) ? EXIT.OK : EXIT.BACKEND
  } catch (error) {
    // INVALID_OPTIONS from a bad CORDON_BACKEND / CORDON_DISABLE.
    return reportFailure(error, json)
  }
}
