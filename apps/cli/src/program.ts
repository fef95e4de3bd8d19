// The `cordon` command, loaded by cli.ts. This file only wires commander to the commands; each
// command, formatter and loader lives in its own file.
import { createRequire } from 'node:module'
import { Command, CommanderError } from 'commander'
import type { DaemonFlags } from './daemon/daemon-command.js'
import type { DoctorFlags } from './doctor-command.js'
import { endProcess } from './process-end.js'
import { EXIT, EXIT_CODES_HELP } from './exit-codes.js'
import { ignoreClosedPipes } from './output.js'
import { reportFailure } from './report-failure.js'
import type { ReplFlags } from './repl-command.js'
import type { RunFlags } from './run-command.js'
import { addSandboxFlags, portNumber, positiveNumber } from './run-options.js'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

const EXAMPLES = `
Examples:
  cordon run program.ts                       run a file (JS or TS, fenced or not)
  echo '1 + 1' | cordon run -                 run what arrives on stdin
  cordon run -e 'Math.max(1, 2)' --json       one JSON document on stdout
  cordon run agent.js --tools ./tools.mjs --globals ./globals.json --timeout 5000
  cordon run program.ts --inspect-brk         step through it in Chrome DevTools
  cordon run hot.js --cpu-prof                write a .cpuprofile of the run
  cordon repl --tools ./tools.mjs             an interactive session (state persists; --fresh: it does not)
  cordon doctor                               which backends work here, and why not
  cordon daemon start                         keep a warm sandbox for later plain cordon run commands`

function buildProgram(): Command {
  const program = new Command('cordon')
    .description('Run untrusted JavaScript or TypeScript in the strongest sandbox available here.')
    .version(version, '-v, --version')
    // Commander exits 1 on its own errors; ours are usage errors (2). See main().
    .exitOverride()
    .showSuggestionAfterError()
    .addHelpText('after', `${EXAMPLES}\n\n${EXIT_CODES_HELP}`)

  addSandboxFlags(
    program
      .command('run')
      .description('run a program and print its value and logs')
      .argument('[file]', 'the program: a .js/.ts file, markdown with a code fence, or - for stdin')
      .option('-e, --eval <code>', 'run this code instead of a file')
      .option('--json', 'print one JSON document (the RunResult plus backend) on stdout, nothing else')
      .option(
        '--inspect [port]',
        'debug the program in Chrome DevTools: prints the URL to open (on an ivm backend; no deadline unless --timeout)',
        portNumber,
      )
      .option('--inspect-brk [port]', 'as --inspect, and wait for the debugger before the first line', portNumber)
      .option('--cpu-prof', 'write a CPU profile of the run (.cpuprofile, opens in DevTools) to cordon-<time>-<pid>.cpuprofile')
      .option('--cpu-prof-name <file>', 'as --cpu-prof, to this file'),
  )
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .action(async (file: string | undefined, flags: RunFlags) => {
      // Each command's modules load when it runs: `cordon run` does not load the REPL's parser.
      const { runCommand } = await import('./run-command.js')
      process.exitCode = await runCommand(file, flags)
    })

  program
    .command('doctor')
    .description('probe every backend: available or not, why, the fix, capabilities, probe time')
    .option('--json', 'print the diagnose() report as JSON')
    .action(async (flags: DoctorFlags) => {
      const { doctorCommand } = await import('./doctor-command.js')
      process.exitCode = await doctorCommand(flags)
    })

  const daemon = program
    .command('daemon')
    .description('a background process of yours that keeps a warm sandbox, so later `cordon run` commands skip starting one')
  for (const [action, description] of [
    ['start', 'start it in the background (it ends after --idle seconds without a run)'],
    ['stop', 'stop it'],
    ['status', 'say whether it runs, since when, and how many runs it served (exit 1 when it does not run)'],
    ['serve', 'be it, in the foreground (for a service manager)'],
  ] as const) {
    const command = daemon.command(action).description(description)
    if (action === 'start' || action === 'serve')
      command.option('--idle <seconds>', 'end after this long without a run', positiveNumber, 900)
    if (action === 'status') command.option('--json', 'print the status as JSON')
    command.action(async (flags: DaemonFlags) => {
      const { daemonCommand } = await import('./daemon/daemon-command.js')
      process.exitCode = await daemonCommand(action, flags)
    })
  }

  addSandboxFlags(
    program
      .command('repl')
      .description('an interactive session: what one entry defines, the next can use (.help inside lists the commands)')
      .option('--fresh', 'run each entry alone in a fresh sandbox, as cordon run would: nothing carries over'),
  ).action(async (flags: ReplFlags) => {
    const { replCommand } = await import('./repl-command.js')
    process.exitCode = await replCommand(flags)
  })
  return program
}

/** How long a finished command waits for the event loop to empty by itself. */
const EXIT_GRACE_MS = 500

async function main(): Promise<void> {
  ignoreClosedPipes()
  const program = buildProgram()
  if (process.argv.length <= 2) {
    program.outputHelp({ error: true })
    process.exitCode = EXIT.USAGE
    return
  }
  try {
    await program.parseAsync(process.argv)
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; everything commander refuses is a usage error.
      process.exitCode = error.exitCode === 0 ? EXIT.OK : EXIT.USAGE
      return
    }
    process.exitCode = reportFailure(error, false)
  }
}

// A parent that restarted the CLI listens on this channel (see process-end.ts); it must not
// keep this process alive by itself.
process.channel?.unref()
await main()
// The command is over; end the process ourselves (process-end.ts says why a natural exit can
// hang). A handle a --tools module left open would keep it alive too: the timer, which holds
// nothing itself, fires only in that case.
process.once('beforeExit', endProcess)
setTimeout(endProcess, EXIT_GRACE_MS).unref()
