/**
 * `changelog`: the contract changes of each release, read from git history. The lockfile is
 * read at each release tag on the first-parent history (the mainline releases are cut from)
 * and at each later commit that changed it; consecutive versions are diffed. Every read is
 * bounded: so many commits, so many versions, so many bytes per version.
 */
import { execFile } from 'node:child_process';
import { relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { LOCKFILE_NAME, LockfileError, parseLockfile } from '../contract/lockfile.js';
import { emptyContracts, type Contracts } from '../contract/model.js';
import { diffContracts } from '../diff/index.js';
import { UserError } from '../errors.js';
import { releaseTagOf } from '../policy/semver.js';
import { changelogSection, renderChangelogJson, renderChangelogMarkdown, type Changelog, type ChangelogSection } from '../report/changelog.js';
import { CLI_COMMAND } from '../version.js';
import { CommandContext, type Runner } from './context.js';

/** Most mainline commits walked, and most lockfile versions read: older ones are left out, and the changelog says so. */
const MAX_COMMITS = 100_000;
const MAX_VERSIONS = 500;
/** A lockfile version larger than this is not read (twice what one capture may hold). */
const MAX_LOCKFILE_BYTES = 128 * 1024 * 1024;

const exec = promisify(execFile);

interface Commit {
  sha: string;
  date: string;
  subject: string;
}

export const run: Runner = async (args, io) => {
  const context = new CommandContext(args, io);
  if (args.positionals.length > 0) throw new UserError(`changelog takes no argument ("${args.positionals[0]}"): name the refs with --from and --to, the lockfile with --lockfile.`);
  const root = (
    await gitIn(io.cwd)(['rev-parse', '--show-toplevel'], 'find the repository').catch(() => {
      throw new UserError(`changelog reads the lockfile's history with git, but ${io.cwd} is not inside a git repository (or git is not installed).`);
    })
  ).trim();
  // Git reads pathspecs relative to its working directory: run it at the top, where `path` is.
  const git = gitIn(root);
  const lockfile = resolve(io.cwd, args.flags.lockfile ?? LOCKFILE_NAME);
  const path = relative(root, lockfile).split('\\').join('/');
  if (path.startsWith('..')) throw new UserError(`The lockfile ${context.display(lockfile)} is outside the repository at ${root}.`);
  const to = await commitOf(git, args.flags.to ?? 'HEAD', '--to');
  const from = args.flags.from === undefined ? undefined : await commitOf(git, args.flags.from, '--from');
  if (from !== undefined && !(await isAncestor(git, from, to))) {
    throw new UserError(`--from ${args.flags.from} is not on the history of --to ${args.flags.to ?? 'HEAD'}: the range would be empty. Name an older release with --from (or swap the two).`);
  }
  const range = [to, ...(from ? [`^${from}`] : [])];
  const notes: string[] = [];

  // The mainline, oldest first, each commit's tags, and the commits that changed the lockfile.
  const mainline = parseCommits(await git(['log', '--first-parent', `--max-count=${MAX_COMMITS}`, '--format=%H%x1f%cs%x1f%s', ...range, '--'], 'list the commits')).reverse();
  if (mainline.length === MAX_COMMITS) notes.push(`Only the newest ${MAX_COMMITS} commits were read: use --from to pick an older range.`);
  // --follow: a lockfile that was moved (git mv) keeps its history, read at its path of the time.
  const changes = parseChanges(await git(['log', '--first-parent', '--follow', `--max-count=${MAX_VERSIONS}`, '--name-status', '--format=%x1e%H', ...range, '--', path], 'list the commits that changed the lockfile'));
  if (changes.length === MAX_VERSIONS) notes.push(`Only the newest ${MAX_VERSIONS} versions of the lockfile were read: use --from to pick an older range.`);
  if (changes.length === 0 && from === undefined) {
    throw new UserError(`${path} was never committed on the history of ${args.flags.to ?? 'HEAD'}: commit the lockfile (${CLI_COMMAND} lock), or point --lockfile at it.`);
  }
  const changed = new Map(changes.map((change) => [change.sha, change]));
  // The lockfile's path at each mainline commit: before the oldest change, where that change found it.
  const oldest = changes.at(-1);
  const startPath = oldest?.previousPath ?? oldest?.path ?? path;
  const pathAt = new Map<string, string>();
  let pathThen = startPath;
  for (const commit of mainline) {
    const change = changed.get(commit.sha);
    if (change !== undefined && change.path !== pathThen && change.previousPath !== undefined) notes.push(`${change.previousPath} was moved to ${change.path} in ${commit.sha.slice(0, 7)}: the versions before that commit are read at ${change.previousPath}.`);
    pathThen = change?.path ?? pathThen;
    pathAt.set(commit.sha, pathThen);
  }
  const tags = await tagsOf(git, new Set([...mainline.map((c) => c.sha), ...(from ? [from] : [])]));

  // The points where a section ends: each tagged commit that follows a change, then each later
  // change; each with the release tag before it on the mainline (from --from's on), which its
  // own release tag is checked against.
  const points: Array<{ commit: Commit; tags: string[]; previousTag?: string }> = [];
  let pending = false;
  let lastRelease = from ? releaseTagOf(tags.get(from) ?? []).tag : undefined;
  const notReleases = new Set<string>();
  for (const commit of mainline) {
    if (changed.has(commit.sha)) pending = true;
    const named = tags.get(commit.sha);
    if (named && pending) {
      points.push({ commit, tags: named, ...(lastRelease !== undefined ? { previousTag: lastRelease } : {}) });
      pending = false;
    }
    const release = releaseTagOf(named ?? []);
    if (release.tag !== undefined) lastRelease = release.tag;
    else for (const tag of release.others) notReleases.add(tag);
  }
  const lastTagged = points.at(-1)?.commit.sha;
  const afterTags = lastTagged === undefined ? mainline : mainline.slice(mainline.findIndex((c) => c.sha === lastTagged) + 1);
  for (const commit of afterTags) if (changed.has(commit.sha)) points.push({ commit, tags: [] });
  if (notReleases.size > 0) {
    const names = [...notReleases].sort();
    const listed = names.slice(0, 10).join(', ') + (names.length > 10 ? ` and ${names.length - 10} more` : '');
    notes.push(`The tag${names.length === 1 ? '' : 's'} ${listed} ${names.length === 1 ? 'is not a semantic version' : 'are not semantic versions'} (vMAJOR.MINOR.PATCH): ${names.length === 1 ? 'its release is' : 'their releases are'} not checked against the changes, and the next release tag is compared with the one before.`);
  }

  // A lockfile deleted and committed again later was not recorded in between: its server did not lose everything.
  const presentAtEnd = changes[0] !== undefined && !changes[0].deleted;
  const start = from ? await lockfileAt(git, from, startPath, notes) : ABSENT;
  let previous = typeof start === 'symbol' ? undefined : start;
  const sections: ChangelogSection[] = [];
  for (const point of points) {
    const pathThere = pathAt.get(point.commit.sha) ?? path;
    const read = await lockfileAt(git, point.commit.sha, pathThere, notes);
    if (read === UNREADABLE) continue;
    if (read === ABSENT && previous !== undefined && presentAtEnd) {
      notes.push(`${pathThere} is absent at ${point.tags.join(', ') || point.commit.sha.slice(0, 7)} and committed again later: that version is left out, the next one is compared with the one before it.`);
      continue;
    }
    const current = typeof read === 'symbol' ? undefined : read;
    if (current === undefined && previous === undefined) continue;
    const before = previous ?? emptyContracts({ name: current?.server.name ?? 'unknown' });
    const after = current ?? emptyContracts({ name: before.server.name });
    const report = await diffContracts(before, after);
    // The first version of the lockfile is where its history starts, not a release of new features.
    const initial = previous === undefined;
    previous = current;
    if (report.summary.maxSeverity === null) continue;
    context.progress(`${point.tags.join(', ') || point.commit.sha.slice(0, 7)}: ${initial ? 'initial' : report.summary.semverBump}`);
    sections.push(
      changelogSection(
        {
          tags: point.tags,
          commit: point.commit.sha,
          date: point.commit.date,
          ...(point.tags.length === 0 ? { subject: point.commit.subject } : {}),
          ...(before.server.version !== undefined ? { previousVersion: before.server.version } : {}),
          ...(after.server.version !== undefined ? { version: after.server.version } : {}),
          ...(point.previousTag !== undefined ? { previousTag: point.previousTag } : {}),
          ...(initial ? { initial: true } : {}),
        },
        report,
      ),
    );
  }
  const changelog: Changelog = { lockfile: path, ...(args.flags.from !== undefined ? { from: args.flags.from } : {}), to: args.flags.to ?? 'HEAD', order: 'newest-first', sections: sections.reverse(), notes };
  io.stdout(args.format === 'json' ? renderChangelogJson(changelog) : renderChangelogMarkdown(changelog));
  return 0;
};

type Git = (args: string[], what: string) => Promise<string>;

function gitIn(cwd: string): Git {
  return async (args, what) => {
    try {
      const { stdout } = await exec('git', args, { cwd, maxBuffer: MAX_LOCKFILE_BYTES, encoding: 'utf8' });
      return stdout;
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
      const tooLarge = (error as { code?: unknown }).code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
      throw Object.assign(new Error(tooLarge ? `more than ${MAX_LOCKFILE_BYTES / 1024 / 1024} MiB` : stderr.split('\n')[0] || (error as Error).message), { what, stderr });
    }
  };
}

async function commitOf(git: Git, ref: string, flag: string): Promise<string> {
  if (ref.startsWith('-')) throw new UserError(`${flag} names a commit, tag or branch; got "${ref}".`);
  try {
    return (await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], `resolve ${flag}`)).trim();
  } catch {
    throw new UserError(`${flag} ${ref} is not a commit, tag or branch of this repository (fetch it first if it lives on a remote: git fetch --tags).`);
  }
}

interface LockfileChange {
  sha: string;
  /** The lockfile's path after the commit, and before it when the commit moved it. */
  path: string;
  previousPath?: string;
  /** The commit deleted the lockfile. */
  deleted: boolean;
}

/** `git log --follow --name-status --format=%x1e%H`: each commit, then its status line (`M\tpath`, `R100\told\tnew`). */
function parseChanges(text: string): LockfileChange[] {
  return text
    .split('\x1e')
    .map((block) => block.split('\n').filter(Boolean))
    .filter((lines) => lines.length > 0)
    .map(([sha = '', status = '']) => {
      const [kind = '', first = '', second] = status.split('\t');
      // A rename or copy names the path it came from first.
      return /^[RC]/.test(kind) && second !== undefined ? { sha, path: second, previousPath: first, deleted: false } : { sha, path: first, deleted: kind === 'D' };
    });
}

/** Whether `ancestor` is `commit` or comes before it (git merge-base exits 1 when it does not). */
async function isAncestor(git: Git, ancestor: string, commit: string): Promise<boolean> {
  return git(['merge-base', '--is-ancestor', ancestor, commit], 'compare --from with --to').then(
    () => true,
    () => false,
  );
}

function parseCommits(text: string): Commit[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sha = '', date = '', subject = ''] = line.split('\x1f');
      return { sha, date, subject };
    });
}

/** The tags of each commit among `commits` (annotated tags peeled to their commit), sorted by name. */
async function tagsOf(git: Git, commits: Set<string>): Promise<Map<string, string[]>> {
  const text = await git(['for-each-ref', '--format=%(refname:strip=2)%1f%(objectname)%1f%(*objectname)', 'refs/tags'], 'list the tags');
  const tags = new Map<string, string[]>();
  for (const line of text.split('\n').filter(Boolean)) {
    const [name = '', object = '', peeled = ''] = line.split('\x1f');
    const commit = peeled || object;
    if (!commits.has(commit)) continue;
    tags.set(commit, [...(tags.get(commit) ?? []), name].sort());
  }
  return tags;
}

const ABSENT = Symbol('absent');
const UNREADABLE = Symbol('unreadable');

/**
 * The lockfile at a commit: ABSENT when the commit has none (everything in it is new, or gone),
 * UNREADABLE when it cannot be read or trusted (said in `notes`; that version is skipped).
 */
async function lockfileAt(git: Git, commit: string, path: string, notes: string[]): Promise<Contracts | typeof ABSENT | typeof UNREADABLE> {
  let text: string;
  try {
    text = await git(['show', `${commit}:${path}`], 'read the lockfile');
  } catch (error) {
    if (/does not exist in|exists on disk, but not in/.test(String((error as { stderr?: unknown }).stderr ?? ''))) return ABSENT;
    notes.push(`${path} at ${commit.slice(0, 7)} could not be read (${(error as Error).message}): that version is left out, the next one is compared with the one before it.`);
    return UNREADABLE;
  }
  try {
    return parseLockfile(text, `${path} at ${commit.slice(0, 7)}`);
  } catch (error) {
    if (!(error instanceof LockfileError)) throw error;
    notes.push(`${error.message} That version is left out: the next one is compared with the one before it.`);
    return UNREADABLE;
  }
}
