// Changesets and publishing: the plan is clean, `changeset version` (in a copy) bumps what the
// changesets ask for and nothing more, and `pnpm -r publish --dry-run` ships only what it should.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { pnpmCommand } from '../pnpm.mjs'
import { bumpVersion, requestedBumps } from './changesets.js'
import { run, userEnv } from './consumer.js'
import { packageFolder } from './global-setup.js'
import { shipped } from './tarball.js'

const { repo, root, tarballs } = inject('packInstall')
const publishable = Object.keys(tarballs).sort()
const changesetBin = join(repo, 'node_modules/@changesets/cli/bin.js')
const copy = join(root, 'release-copy')
const sh = (command: string, cwd: string) => run('sh', ['-c', command], cwd, userEnv())
// `changeset status` diffs against the config's base branch. A CI checkout is often a detached
// commit with no local base branch; then the status runs in a throwaway clone whose base branch
// is that commit (nothing differs from it, and every committed changeset is still read).
const baseBranch = JSON.parse(readFileSync(join(repo, '.changeset/config.json'), 'utf8')).baseBranch as string
const git = (args: string[], cwd: string) =>
  execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim()
function statusCheckout(): string {
  try {
    git(['rev-parse', '--verify', '--quiet', `${baseBranch}^{commit}`], repo)
    return repo
  } catch {
    const clone = join(root, 'status-clone')
    git(['clone', '-q', '--shared', '--no-checkout', repo, clone], root)
    git(['checkout', '-q', '-B', baseBranch, git(['rev-parse', 'HEAD'], repo)], clone)
    return clone
  }
}
const manifest = (dir: string, pkg: string) => JSON.parse(readFileSync(join(dir, packageFolder(pkg), 'package.json'), 'utf8'))

// What each package's next version must be: its largest requested bump; dependents of a
// released package get a patch (updateInternalDependencies), never more.
const requested = requestedBumps(join(repo, '.changeset'))
const expected = Object.fromEntries(
  publishable.map((pkg) => [pkg, bumpVersion(manifest(repo, pkg).version, requested.get(pkg)?.bump ?? 'patch')]),
)

describe('changesets', () => {
  it('`changeset status` is clean and plans exactly the requested bumps', async () => {
    const plan = join(root, 'release-plan.json')
    const r = await run('node', [changesetBin, 'status', `--output=${plan}`], statusCheckout())
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const { releases } = JSON.parse(readFileSync(plan, 'utf8')) as { releases: { name: string; type: string; newVersion: string }[] }
    const planned = Object.fromEntries(releases.filter(({ type }) => type !== 'none').map(({ name, newVersion }) => [name, newVersion]))
    // Only publishable packages are versioned (apps are private), each to its requested version.
    expect(planned).toEqual(Object.fromEntries(Object.entries(expected).filter(([pkg]) => pkg in planned)))
    for (const pkg of requested.keys()) expect(planned[pkg], pkg).toBe(expected[pkg])
  })

  describe('`changeset version` in a copy of the repo', () => {
    beforeAll(async () => {
      // The files git would commit (tracked and new, not ignored), plus the built dist folders.
      const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo })
        .toString()
        .split('\0')
        .filter((file) => file && existsSync(join(repo, file)))
      for (const file of files) {
        mkdirSync(dirname(join(copy, file)), { recursive: true })
        cpSync(join(repo, file), join(copy, file))
      }
      for (const pkg of publishable) {
        const dist = join(packageFolder(pkg), 'dist')
        cpSync(join(repo, dist), join(copy, dist), { recursive: true })
      }
      const version = await run('node', [changesetBin, 'version'], copy)
      expect(version.code, version.stdout + version.stderr).toBe(0)
    })

    it.each(publishable)('%s gets its version and a CHANGELOG with every changeset naming it', (pkg) => {
      expect(manifest(copy, pkg).version).toBe(expected[pkg])
      const changelog = readFileSync(join(copy, packageFolder(pkg), 'CHANGELOG.md'), 'utf8')
      expect(changelog.split('\n').slice(0, 3)).toEqual([`# ${pkg}`, '', `## ${expected[pkg]}`])
      for (const summary of requested.get(pkg)?.summaries ?? []) expect(changelog).toContain(summary)
    })

    it('consumes the changesets and leaves private packages alone', async () => {
      expect(readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md')).toEqual([])
      const listing = await sh(`${pnpmCommand()} -r ls --depth -1 --json`, repo)
      const workspace = JSON.parse(listing.stdout) as { name: string; path: string; private?: boolean }[]
      for (const { name, path } of workspace.filter((p) => p.private && p.path !== repo)) {
        const dir = relative(repo, path)
        expect(existsSync(join(copy, dir, 'CHANGELOG.md')), name).toBe(false)
        expect(readFileSync(join(copy, dir, 'package.json'), 'utf8'), name).toBe(readFileSync(join(path, 'package.json'), 'utf8'))
      }
    })

    it(
      '`pnpm -r publish --dry-run` publishes each package with only dist, README, CHANGELOG, package.json and LICENSE',
      { timeout: 180_000 },
      async () => {
        // pnpm resolves `workspace:` ranges through the installed links. Not frozen: the lockfile is
        // checked by bootstrap's install, and here only the links matter.
        const install = await sh(`${pnpmCommand()} install --no-frozen-lockfile --prefer-offline --ignore-scripts --reporter=silent`, copy)
        expect(install.code, install.stdout + install.stderr).toBe(0)
        // --force: list the tarballs even once these versions are on the registry.
        const publish = await sh(`${pnpmCommand()} -r publish --dry-run --no-git-checks --force 2>&1`, copy)
        expect(publish.code, publish.stdout).toBe(0)
        const listed = tarballContents(publish.stdout)
        expect(Object.keys(listed).sort()).toEqual(publishable.map((pkg) => `${pkg}@${expected[pkg]}`))
        for (const [pkg, files] of Object.entries(listed)) {
          expect(
            files.filter((f) => !shipped.test(f)),
            pkg,
          ).toEqual([])
          expect(files, pkg).toEqual(
            expect.arrayContaining(['README.md', 'CHANGELOG.md', 'package.json', 'LICENSE', 'dist/index.js', 'dist/index.d.ts']),
          )
        }
      },
    )
  })
})

/** npm's dry-run notice: "📦  name@version", then "Tarball Contents", one "size path" line per file. */
function tarballContents(output: string): Record<string, string[]> {
  const listed: Record<string, string[]> = {}
  let current: string[] | undefined
  for (const line of output.split('\n').map((l) => l.replace(/^npm notice\s?/, '').trim())) {
    const header = /^📦\s+(\S+)$/.exec(line)
    if (header) listed[header[1]!] = current = []
    else if (line === 'Tarball Details') current = undefined
    else if (current && line !== 'Tarball Contents') current.push(line.split(/\s+/).slice(1).join(' '))
  }
  return listed
}
