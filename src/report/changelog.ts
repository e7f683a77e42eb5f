/**
 * The contract changelog: the changes of each release, as a consumer of the server reads them
 * in a CHANGELOG (Breaking / Changed / Added / Deprecated / Removed), each section with the
 * release its changes call for under semantic versioning. Built from diff reports between
 * lockfile versions (the `changelog` command reads them from git history); rendered as
 * Markdown or JSON. Names and messages come from servers: escaped for Markdown.
 */
import { ENTRY_NOUN, type EntryKind } from '../contract/model.js';
import { releaseTagOf, releaseVerdict } from '../policy/semver.js';
import { entryReports, type DiffReport, type SemverBump, type Severity } from '../protocol/index.js';
import { changeGroupOf, type ChangeGroup } from '../rules/index.js';
import { entryName } from './entry-name.js';
import { mdCode, mdText } from './escape.js';

export const CHANGE_GROUPS: readonly ChangeGroup[] = ['breaking', 'changed', 'added', 'deprecated', 'removed'];
export type { ChangeGroup } from '../rules/index.js';

const GROUP_TITLE: Readonly<Record<ChangeGroup, string>> = { breaking: 'Breaking', changed: 'Changed', added: 'Added', deprecated: 'Deprecated', removed: 'Removed' };

export interface ChangelogItem {
  kind: EntryKind | 'server';
  name: string;
  /** How people read the entry's name: a renamed one as `old → new`. */
  label?: string;
  severity: Severity;
  rule: string;
  field: string;
  message: string;
  fingerprint: string;
}

/** Where a section ends, and the server's versions on either side. */
export interface SectionFacts {
  /** The release tags at the section's commit; empty for a commit that no release holds yet. */
  tags: string[];
  commit: string;
  /** The commit's date, YYYY-MM-DD. */
  date: string;
  /** The commit's subject, for a section of one untagged commit. */
  subject?: string;
  /** The server's version (serverInfo.version) as the lockfile records it, at the start and at the end of the section. */
  previousVersion?: string;
  version?: string;
  /** The release tag before this section's on the mainline, to check this section's tag against. */
  previousTag?: string;
  /** The first version of the lockfile: nothing earlier to compare with. */
  initial?: boolean;
}

export interface ChangelogSection extends Omit<SectionFacts, 'initial'> {
  /** What the changes call for; `initial` for the first version, which has no release before it. */
  semverBump: SemverBump | 'initial';
  /** Set when the recorded version or the release tag went up by less than the changes call for. */
  versionNote?: string;
  changes: Record<ChangeGroup, ChangelogItem[]>;
}

export interface Changelog {
  lockfile: string;
  from?: string;
  to: string;
  /** Sections are listed newest first. */
  order: 'newest-first';
  sections: ChangelogSection[];
  /** Versions that could not be read, ranges cut short: said once, at the end. */
  notes: string[];
}

/** One section: the changes of `report` grouped, its semver bump, and whether the recorded version says it. */
export function changelogSection(facts: SectionFacts, report: DiffReport): ChangelogSection {
  const changes = Object.fromEntries(CHANGE_GROUPS.map((g) => [g, [] as ChangelogItem[]])) as Record<ChangeGroup, ChangelogItem[]>;
  for (const { kind, name, entry } of entryReports(report)) {
    for (const d of entry.deltas) {
      const label = entryName(name, entry);
      changes[changeGroupOf(d)].push({ kind, name, ...(label !== name ? { label } : {}), severity: d.severity, rule: d.kind, field: d.field, message: d.message, fingerprint: d.fingerprint });
    }
  }
  const { initial, ...shown } = facts;
  if (initial) return { ...shown, semverBump: 'initial', changes };
  const bump = report.summary.semverBump;
  const section: ChangelogSection = { ...shown, semverBump: bump, changes };
  // The section's release tag, when it has one and a release tag came before it, is checked as the Action checks a release's.
  const tag = releaseTagOf(facts.tags).tag;
  const verdict = releaseVerdict({
    bump,
    ...(facts.previousVersion !== undefined ? { previous: facts.previousVersion } : {}),
    ...(facts.version !== undefined ? { current: facts.version } : {}),
    ...(tag !== undefined && facts.previousTag !== undefined ? { tags: { current: tag, previous: facts.previousTag } } : {}),
    mode: 'warn',
  });
  if (verdict.check === 'too-small' && verdict.message !== undefined) section.versionNote = verdict.message;
  return section;
}

export function renderChangelogJson(changelog: Changelog): string {
  return `${JSON.stringify(changelog, null, 2)}\n`;
}

export function renderChangelogMarkdown(changelog: Changelog): string {
  const range = changelog.from === undefined ? `up to ${mdCode(changelog.to)}` : `from ${mdCode(changelog.from)} to ${mdCode(changelog.to)}`;
  const lines = [
    `# Contract changelog of ${mdCode(changelog.lockfile)}`,
    '',
    `Newest first, ${range}. Each release tag's section compares the lockfile there with the previous tag's; changes no tag holds yet are listed per commit.`,
  ];
  if (changelog.sections.length === 0) lines.push('', 'No contract changes in this range.');
  for (const section of changelog.sections) lines.push('', ...sectionLines(section));
  if (changelog.notes.length > 0) lines.push('', ...changelog.notes.map((note) => `> ${mdText(note)}`));
  return `${lines.join('\n')}\n`;
}

function sectionLines(section: ChangelogSection): string[] {
  const what = section.tags.length > 0 ? section.tags.map(mdText).join(', ') : `${mdCode(section.commit.slice(0, 7))}${section.subject !== undefined ? ` ${mdText(section.subject)}` : ''}`;
  const version =
    section.version === undefined ? '' : section.previousVersion !== undefined && section.previousVersion !== section.version ? ` · server ${mdCode(section.previousVersion)} → ${mdCode(section.version)}` : ` · server ${mdCode(section.version)}`;
  const bump = section.semverBump === 'initial' ? '**initial** (the first version of the lockfile: every entry is new)' : `**${section.semverBump}**`;
  const lines = [`## ${what} (${section.date})`, '', `Semver: ${bump}${version}`];
  if (section.versionNote !== undefined) lines.push('', `> [!WARNING]\n> ${mdText(section.versionNote)}`);
  for (const group of CHANGE_GROUPS) {
    const items = section.changes[group];
    if (items.length === 0) continue;
    lines.push('', `### ${GROUP_TITLE[group]}`, '', ...items.map((item) => itemLine(item, group)));
  }
  return lines;
}

function itemLine(item: ChangelogItem, group: ChangeGroup): string {
  const noun = item.kind === 'server' ? 'server' : ENTRY_NOUN[item.kind];
  const subject = `${noun} ${mdCode(item.label ?? item.name)}`;
  // Added and Removed say it all with the entry's name; the others need the change.
  if ((group === 'added' || group === 'removed') && item.field === '') return `- ${subject}`;
  const severity = group === 'changed' ? ` (${item.severity})` : '';
  return `- ${subject}${severity}: ${mdText(item.message)}`;
}
