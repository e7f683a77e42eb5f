// The release workflow's first step (.github/workflows/release.yml): decides whether a pushed tag
// is a release, and stops it with one clear message when the tag and the checkout disagree.
//   node scripts/release.mjs TAG [--notes FILE] [--root DIR]
// A release tag is vX.Y.Z (semver, no pre-release) equal to package.json's version, in a
// checkout whose version pins agree (scripts/version.mjs) and whose CHANGELOG.md has the
// version's section: those notes go to FILE, for the GitHub release. A bare major tag (v1) is
// the tag a release moves, not a release: nothing to do, exit 0. Anything else exits 1.
// Under GitHub Actions it writes `release`, `version` and `major-tag` to GITHUB_OUTPUT, and its
// error as an annotation.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { changelogSection, checkVersion, describeProblem } from './version.mjs';

const RELEASE_TAG = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;
const MAJOR_TAG = /^v(0|[1-9]\d*)$/;

const args = process.argv.slice(2);
const option = (name) => {
  const index = args.indexOf(name);
  if (index === -1) return undefined;
  const [value] = args.splice(index, 2).slice(1);
  return value;
};
const notesFile = option('--notes');
const root = option('--root') ?? fileURLToPath(new URL('..', import.meta.url));
const [tag, ...extra] = args;

function output(values) {
  if (!process.env.GITHUB_OUTPUT) return;
  appendFileSync(process.env.GITHUB_OUTPUT, Object.entries(values).map(([key, value]) => `${key}=${value}\n`).join(''));
}

function stop(message) {
  // One paragraph, and on GitHub an annotation on the run.
  console.error(process.env.GITHUB_ACTIONS === 'true' ? `::error title=Release stopped::${message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}` : `Release stopped: ${message}`);
  output({ release: 'false' });
  process.exit(1);
}

if (tag === undefined || extra.length > 0) stop('usage: node scripts/release.mjs TAG [--notes FILE] [--root DIR]');
if (MAJOR_TAG.test(tag)) {
  console.log(`${tag} is the major tag a release moves, not a release: nothing to do.`);
  output({ release: 'false' });
  process.exit(0);
}
if (!RELEASE_TAG.test(tag)) {
  stop(`the tag "${tag}" is not a release tag: a release is tagged vMAJOR.MINOR.PATCH (v1.2.3, semver without a pre-release), and its commit's package.json has that version. Delete the tag (git push --delete origin ${tag}) and tag the release as v1.2.3.`);
}

const version = tag.slice(1);
const packageVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
if (packageVersion !== version) {
  stop(`the tag ${tag} says ${version}, but package.json at that commit says ${packageVersion}. Run \`npm version ${version}\` (it updates every place that names the version), push that commit, and tag it ${tag}; or tag this commit v${packageVersion}.`);
}
const { problems } = checkVersion(root);
if (problems.length > 0) {
  stop(`version ${version} is not named the same everywhere:\n${problems.map((p) => `  ${describeProblem(p)}`).join('\n')}\nRun \`node scripts/version.mjs --write\`, write the CHANGELOG.md section if it is missing, commit, and tag again.`);
}

const notes = changelogSection(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), version);
if (notesFile !== undefined) writeFileSync(notesFile, `${notes}\n`);
const majorTag = `v${version.split('.')[0]}`;
output({ release: 'true', version, 'major-tag': majorTag });
console.log(`Releasing ${version}: the tag, package.json and every pin agree; notes from CHANGELOG.md (${notes.split('\n').length} lines); ${majorTag} will point at it.`);
