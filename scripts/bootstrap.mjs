// Makes a fresh clone runnable with only Node and npm: gets pnpm (pinned), installs, builds.
import { execSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { pnpmCommand } from './pnpm.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
// corepack cannot always verify pnpm's signature; a pinned npx download always works.
const pnpm = pnpmCommand()
const run = (command) => execSync(command, { cwd: root, stdio: 'inherit', env: { ...process.env, npm_config_update_notifier: 'false' } })

// Cheap when nothing changed; catches a lockfile that moved since the last install.
run(`${pnpm} install --frozen-lockfile --reporter=silent`)
run(`${pnpm} exec turbo run build --output-logs=errors-only`)
