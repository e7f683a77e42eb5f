// Every place that names this package's version agrees with package.json, the one source:
//   node scripts/version.mjs            lists what disagrees (exit 1), or says that all agree
//   node scripts/version.mjs --write    brings them in line (npm's `version` hook runs it, so
//                                       `npm version 1.2.0` updates them in the same commit)
// The places: package-lock.json, src/version.ts (what the CLI and the Action's bundle print),
// and the pinned commands of the README, docs/, SECURITY.md and examples/ (`npx
// mcp-contract-guard@X.Y.Z`, the Action's `mcp-contract-guard/mcp-contract-guard@vN`). CHANGELOG.md
// is history: it is never rewritten, but it must have a section for the version.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SEMVER = String.raw`\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?`;
/** `npx mcp-contract-guard@1.2.3`, `npm install mcp-contract-guard@1.2.3`, the proxy's args. */
const NPM_PIN = new RegExp(String.raw`(?<![\w/-])mcp-contract-guard@(${SEMVER})`, 'g');
/** `uses: mcp-contract-guard/mcp-contract-guard@v1` (or an exact `@v1.2.3`). */
const ACTION_PIN = new RegExp(String.raw`mcp-contract-guard/mcp-contract-guard@v(\d+(?:\.\d+\.\d+)?)\b`, 'g');
const VERSION_TS = /^export const VERSION = '([^']*)';$/m;

/** The text files that may pin a version, relative to `root`. */
function pinningFiles(root) {
  const files = ['README.md', 'SECURITY.md'];
  const walk = (dir) => {
    if (!existsSync(join(root, dir))) return;
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(md|ya?ml|mjs|js|ts|json)$/.test(entry.name)) files.push(path);
    }
  };
  walk('docs');
  walk('examples');
  return files.filter((file) => existsSync(join(root, file)));
}

/** The version's section of CHANGELOG.md (`## 1.2.3`, optionally ` - date`), or undefined. */
export function changelogSection(changelog, version) {
  const heading = new RegExp(String.raw`^## \[?${version.replace(/\./g, '\\.')}\]?(?:\s+[-–]\s+.*)?\s*$`, 'm');
  const match = heading.exec(changelog);
  if (match === null) return undefined;
  const rest = changelog.slice(match.index + match[0].length);
  const next = /^##? /m.exec(rest);
  return (next === null ? rest : rest.slice(0, next.index)).trim();
}

/**
 * Where the version disagrees with package.json's: `{ version, problems: [{ file, line?, found,
 * expected }] }`. With `write`, fixes what can be fixed and returns what it changed.
 */
export function checkVersion(root, { write = false } = {}) {
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  const major = version.split('.')[0];
  const problems = [];
  const changed = [];

  const lockPath = join(root, 'package-lock.json');
  if (existsSync(lockPath)) {
    const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
    for (const [where, found] of [['version', lock.version], ['packages[""].version', lock.packages?.['']?.version]]) {
      if (found !== version) problems.push({ file: 'package-lock.json', found: `${where} ${found}`, expected: version });
    }
    if (write && problems.some((p) => p.file === 'package-lock.json')) {
      lock.version = version;
      if (lock.packages?.['']) lock.packages[''].version = version;
      writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
      changed.push('package-lock.json');
    }
  }

  const versionTs = join(root, 'src/version.ts');
  if (existsSync(versionTs)) {
    const text = readFileSync(versionTs, 'utf8');
    const found = VERSION_TS.exec(text)?.[1];
    if (found !== version) {
      problems.push({ file: 'src/version.ts', found: String(found), expected: version });
      if (write && found !== undefined) {
        writeFileSync(versionTs, text.replace(VERSION_TS, `export const VERSION = '${version}';`));
        changed.push('src/version.ts');
      }
    }
  }

  for (const file of pinningFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    const expectedAction = (found) => (found.includes('.') ? version : major);
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      for (const [, found] of line.matchAll(NPM_PIN)) if (found !== version) problems.push({ file, line: index + 1, found: `mcp-contract-guard@${found}`, expected: `mcp-contract-guard@${version}` });
      for (const [, found] of line.matchAll(ACTION_PIN)) {
        if (found !== expectedAction(found)) problems.push({ file, line: index + 1, found: `@v${found}`, expected: `@v${expectedAction(found)}` });
      }
    });
    if (write) {
      const fixed = text.replace(NPM_PIN, `mcp-contract-guard@${version}`).replace(ACTION_PIN, (_, found) => `mcp-contract-guard/mcp-contract-guard@v${expectedAction(found)}`);
      if (fixed !== text) {
        writeFileSync(join(root, file), fixed);
        changed.push(file);
      }
    }
  }

  const changelogPath = join(root, 'CHANGELOG.md');
  const section = existsSync(changelogPath) ? changelogSection(readFileSync(changelogPath, 'utf8'), version) : undefined;
  if (!section) problems.push({ file: 'CHANGELOG.md', found: section === undefined ? 'no section' : 'an empty section', expected: `a "## ${version}" section with the release's notes` });

  return { version, problems, changed };
}

export function describeProblem(problem) {
  return `${problem.file}${problem.line === undefined ? '' : `:${problem.line}`}: ${problem.found}, expected ${problem.expected}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rootFlag = process.argv.indexOf('--root');
  const root = rootFlag === -1 ? fileURLToPath(new URL('..', import.meta.url)) : process.argv[rootFlag + 1];
  const write = process.argv.includes('--write');
  const { version, problems, changed } = checkVersion(root, { write });
  if (write && changed.length > 0) console.log(`Set version ${version} in ${changed.join(', ')}.`);
  const left = write ? checkVersion(root).problems : problems;
  if (left.length > 0) {
    console.error(`The version is ${version} (package.json), but:\n${left.map((p) => `  ${describeProblem(p)}`).join('\n')}`);
    if (!write) console.error('Run `node scripts/version.mjs --write` to bring the pins in line (npm version does it).');
    process.exit(1);
  }
  if (!write) console.log(`Version ${version}: package.json, package-lock.json, src/version.ts, the docs' pins and CHANGELOG.md agree.`);
}
