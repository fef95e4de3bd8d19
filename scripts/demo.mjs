// The README's "main job": the `cordon` command runs a program (examples/hello.ts by default)
// in the strongest sandbox that works here, with a small fake GitHub tool and a `repo` global.
// `npm start -- path/to/program.ts` runs your own program instead.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const file = process.argv[2] ?? 'examples/hello.ts'
const args = [
  'apps/cli/dist/cli.js',
  'run',
  file,
  '--tools',
  'apps/cli/examples/github-tools.mjs',
  '--globals',
  'apps/cli/examples/globals.json',
  '--timeout',
  '5000',
  '--stats',
]
console.log(`$ cordon ${args.slice(1).join(' ')}`)
const { status } = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
process.exitCode = status ?? 1
