// Names the failed tests of a vitest JSON report (jest format), one line each, so a log that
// keeps only its end still says what failed.
import { relative } from 'node:path'

export function failedTests(report, base) {
  const lines = []
  for (const suite of report.testResults ?? []) {
    const where = suite.name ? relative(base, suite.name) : '(unknown file)'
    const tests = (suite.assertionResults ?? []).filter((test) => test.status === 'failed')
    for (const test of tests) lines.push(`${where} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`)
    if (suite.status === 'failed' && tests.length === 0) lines.push(`${where}: ${firstLine(suite.message)}`)
  }
  return lines
}

function firstLine(text) {
  // eslint-disable-next-line no-control-regex
  const plain = String(text ?? '').replace(/\x1b\[[0-9;]*m/g, '')
  return (
    plain
      .split('\n')
      .find((line) => line.trim())
      ?.trim()
      .slice(0, 300) ?? 'no message'
  )
}
