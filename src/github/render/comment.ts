import { ENTRY_KINDS, countOf, type EntryKind } from '../../contract/model.js';
import type { Delta, Severity, ServerReview } from '../../protocol/index.js';
import {
  DETAIL_LEVELS,
  mdCode,
  mdCodeBlock,
  mdText,
  partialNote,
  renderDetails,
  renderDigest,
  truncate,
  truncateMarkdown,
  type DetailLevel,
  type MarkdownOptions,
} from '../../report/index.js';
import { shortSha } from '../text.js';
import { allowSnippet } from './allow-snippet.js';
import { commentMarker } from '../io/index.js';

/** A GitHub login shown without pinging it (inside a code span a mention is inert). */
function quietMention(login: string): string {
  return mdCode(`@${login}`);
}

/** GitHub rejects comment bodies over 65,536 characters; keep a margin for its own counting. */
export const COMMENT_LIMIT = 65_000;
/** A job summary may hold 1 MiB per step; several servers share it. */
export const SUMMARY_LIMIT = 900_000;

/**
 * The sticky PR comment for one server, read top-down in ten seconds: the gate's verdict in
 * one paragraph (how many changes break callers, where, the release they call for, what to
 * do), the digest (counts, what changes for callers, each fix once), then the detail collapsed
 * per severity, what was accepted, how to reproduce it, and the links to the run. A review
 * that could not be made gets the short failure body instead. Everything from the PR is escaped.
 */
export function renderComment(review: ServerReview, maxLength = COMMENT_LIMIT): string {
  const marker = commentMarker(review.id, review.job);
  if (review.report === null) {
    return renderFailedReview({ marker, headSha: review.headSha, name: review.name, why: review.reviewError ?? review.gate.failures.join('\n'), runUrl: review.runUrl, footer: footer(review) });
  }
  const alert = review.alert === undefined ? [] : [`> [!CAUTION]\n> ${mdText(truncate(review.alert, 1_000))}`];
  return renderReview(review, { opening: [marker, ...alert], closing: [footer(review)], maxLength, fullReport: runLink(review.runUrl) ? `the [job summary](${runLink(review.runUrl)}) of this run, or its delta artifact,` : 'the job summary of this run, or its delta artifact,' });
}

/** The comment after a later push reverted every change: short, and still findable by its marker. */
export function renderQuietComment(review: ServerReview): string {
  const compared = review.baseline ? ` match ${mdCode(review.lockfile)} at ${mdText(truncate(review.baseline, 300))}` : ' match the lockfile';
  return [
    commentMarker(review.id, review.job),
    `### MCP contract changes in ${serverName(review.name)}: none`,
    `✅ The contracts at ${shortSha(review.headSha)}${compared}. An earlier push to this pull request changed them; those changes are gone.`,
    footer(review),
  ].join('\n\n') + '\n';
}

/**
 * The sticky comment of a run that could not review at all (a malformed config pushed, a
 * base that cannot be read…): it replaces the previous review, which described an older
 * commit, with why and what to do. The next good run puts the review back.
 */
export function renderFailedReview(options: { marker: string; headSha: string; name?: string; why: string; runUrl?: string | undefined; footer?: string }): string {
  const what = options.name === undefined ? 'the contracts' : serverName(options.name);
  const link = runLink(options.runUrl);
  const log = link ? `the log of the [workflow run](${link})` : 'the log of this workflow run';
  return [
    options.marker,
    `> [!CAUTION]\n> **Could not review ${what} at ${mdCode(shortSha(options.headSha))}**, so this check fails. What went wrong:`,
    whatWentWrong(options.why),
    `Fix what it says (${log} has the details) and push again: the next run replaces this comment with the review. Until then, the review of an earlier commit is no longer shown here.`,
    options.footer ?? footerLinks(options.runUrl),
  ]
    .filter((s) => s !== '')
    .join('\n\n') + '\n';
}

/** The job summary section for one server: the same content, with the summary's own size limit. */
export function renderSummarySection(review: ServerReview, maxLength: number): string {
  if (review.report === null) {
    return `> [!CAUTION]\n> **Could not review ${serverName(review.name)}** at ${mdCode(shortSha(review.headSha))}, so this check fails. What went wrong:\n\n${whatWentWrong(review.reviewError ?? review.gate.failures.join('\n'))}\n`;
  }
  return renderReview(review, { opening: [], closing: [], maxLength, fullReport: 'the delta artifact of this run' });
}

/**
 * The verdict, the digest and the detail at the most detailed level that fits; past the
 * least detailed one, the detail is cut, and the verdict, what was accepted, how to reproduce
 * it and the links stay.
 */
function renderReview(
  review: ServerReview,
  layout: { opening: string[]; closing: string[]; maxLength: number; fullReport: string; verdict?: string; readers?: 'consumers' },
): string {
  const report = review.report!;
  const options: MarkdownOptions = { fullReport: layout.fullReport, markOf: markOf(review) };
  const top = (level: DetailLevel) => [...layout.opening, layout.verdict ?? verdict(review), ...problems(review), level === 'full' ? '' : partialNote(options)];
  // The consumers of a third-party server (a watch issue) can neither apply the fixes, written for its developers, nor allow-list its changes.
  const forConsumers = layout.readers === 'consumers';
  const digest = renderDigest(report, { ...options, fixes: !forConsumers });
  const detail = (level: DetailLevel) => [digest, renderDetails(report, level, options)];
  const snippet = forConsumers ? '' : allowSnippetSection(review, Math.floor(layout.maxLength / 3));
  const after = [accepted(review), snippet, notes(review), reproduce(review)];
  for (const level of DETAIL_LEVELS) {
    const body = joinBlocks([...top(level), ...detail(level), ...after, ...layout.closing]);
    if (body.length <= layout.maxLength) return body;
  }
  const head = joinBlocks(top('one-line'));
  const end = joinBlocks(layout.closing);
  const rest = joinBlocks(after);
  const note = `> [!NOTE]\n> Cut here: ${layout.fullReport} has every change.`;
  const room = layout.maxLength - head.length - end.length - 8;
  const cutDetail = truncateMarkdown(joinBlocks(detail('one-line')), Math.max(room - rest.length, Math.floor(room / 2)), note);
  const body = joinBlocks([head, cutDetail, truncateMarkdown(rest, Math.max(0, room - cutDetail.length), note), end]);
  return truncateMarkdown(body, layout.maxLength, note);
}

/**
 * A pinned server whose latest release drifted from its pin, as the watch mode reports it: the
 * same digest-first body as a PR comment (digest, detail, notes) under `verdict`, the paragraph
 * that says what drifted and how to accept it (trusted Markdown). The issue's body opens with its
 * `marker` and ends with a footer naming the pin and the release (`compared`, Markdown); the
 * job summary's section has neither.
 */
export function renderDriftReview(review: ServerReview, parts: { verdict: string; issue?: { marker: string; compared: string } }, maxLength = COMMENT_LIMIT): string {
  const { verdict, issue } = parts;
  if (issue === undefined) return renderReview(review, { opening: [], closing: [], maxLength, fullReport: 'the log of this run', verdict, readers: 'consumers' });
  const link = runLink(review.runUrl);
  const fullReport = link ? `the [job summary](${link}) of this run` : 'the job summary of this run';
  const closing = footerLinks(review.runUrl, `job ${mdCode(review.job)} · ${issue.compared}`, true);
  return renderReview(review, { opening: [issue.marker], closing: [closing], maxLength, fullReport, verdict, readers: 'consumers' });
}

/** A server's name as the comment shows it: in code, and short (the server may name itself anything). */
export function serverName(name: string): string {
  return mdCode(truncate(name, 200));
}

function joinBlocks(blocks: readonly string[]): string {
  return `${blocks.map((b) => b.trimEnd()).filter((b) => b !== '').join('\n\n')}\n`;
}

/** How each change is marked where it is listed: allow-listed, approved, or new since the approval. */
function markOf(review: ServerReview): (delta: Delta) => string | undefined {
  const accepted = new Set(review.accepted.map((a) => a.fingerprint));
  const fresh = new Set(review.approvalCoverage?.newSinceApproval ?? []);
  const approved = new Set(review.approvalCoverage?.approvedFingerprints ?? (review.gate.verdict === 'approved' ? review.gate.blocking.map((b) => b.fingerprint) : []));
  return (delta) => {
    if (accepted.has(delta.fingerprint)) return '✅ allow-listed';
    if (fresh.has(delta.fingerprint)) return '🆕 new since the approval';
    if (approved.has(delta.fingerprint)) return '✅ approved';
    return undefined;
  };
}

/** The gate's verdict in one paragraph: pass or fail, how many changes where, the release they call for, what to do. */
function verdict(review: ServerReview): string {
  const { gate } = review;
  const name = serverName(review.name);
  const threshold = mdCode(`fail-on: ${review.failOn}`);
  const release = releaseSentence(review);
  const alert = (kind: 'CAUTION' | 'NOTE', text: string) => `> [!${gate.pass ? kind : 'CAUTION'}]\n> ${text}`;
  // The contract changes pass, but a stale lockfile or a version too small fails the check: said first.
  const failedThough = (why: string) => alert('CAUTION', `**Contract check failed** for ${name}, though ${why}.${release}`);
  switch (gate.verdict) {
    case 'blocked': {
      const fresh = new Set(review.approvalCoverage?.newSinceApproval ?? []);
      const label = review.approveLabel === undefined ? '' : mdCode(review.approveLabel);
      const allowList = 'accept them in the allow-list (entries below)';
      const ignored = review.approvalIgnored !== undefined ? `\n>\n> ${mdText(truncate(review.approvalIgnored, 2_000))}` : '';
      if (fresh.size > 0 && label !== '') {
        const newer = gate.blocking.filter((b) => fresh.has(b.fingerprint));
        return alert('CAUTION', `**Contract gate failed** for ${name}: ${changesIn(newer)} ${newer.length === 1 ? 'is' : 'are'} new since the label ${label} was added (marked 🆕 below), and the label approves only what it saw.${release} If they are intended too, remove the label and add it again, or ${allowList}.`);
      }
      const how = label !== '' ? `If they are intended, add the label ${label} to this pull request, or ${allowList}.` : `If they are intended, ${allowList}.`;
      return alert('CAUTION', `**Contract gate failed** for ${name}: ${changesIn(gate.blocking)} ${gate.blocking.length === 1 ? 'is' : 'are'} not approved.${release} ${how}${ignored}`);
    }
    case 'approved': {
      const by = review.approval?.by ? ` (added by ${quietMention(review.approval.by)})` : '';
      const outcome = gate.pass
        ? `the gate passes despite ${changesIn(gate.blocking)} at or above ${threshold}`
        : `${changesIn(gate.blocking)} at or above ${threshold} ${gate.blocking.length === 1 ? 'is' : 'are'} approved, but this check still fails`;
      return alert('NOTE', `**Approved by label** ${mdCode(review.approval?.label ?? '')}${by}: ${outcome}.${release}`);
    }
    case 'accepted':
      if (!gate.pass) return failedThough(`every change at or above ${threshold} is accepted by the allow-list (listed below)`);
      return alert('NOTE', `**Contract gate passed**: every change at or above ${threshold} is accepted by the allow-list (listed below).${release}`);
    case 'below-threshold':
      if (!gate.pass) return failedThough(`no change reaches ${threshold} (${changesIn(everyChange(review))})`);
      return `✅ **Contract gate passed**: no change reaches ${threshold} (${changesIn(everyChange(review))}).${release}`;
    case 'not-gated':
      if (!gate.pass) return failedThough(`the contract gate is off (${mdCode('fail-on: never')}) for ${changesIn(everyChange(review))}`);
      return `The contract gate is off (${mdCode('fail-on: never')}): this review only reports ${changesIn(everyChange(review))}.${release}`;
    case 'unknown':
      return alert('CAUTION', `**Could not review ${name}** at ${mdCode(shortSha(review.headSha))}, so this check fails. What went wrong:`);
    case 'clean': {
      const changes = everyChange(review);
      if (!gate.pass) return failedThough(changes.length === 0 ? 'there are no contract changes' : `no change fails the gate (${changesIn(changes)})`);
      return changes.length === 0 ? '✅ **Contract gate passed**: no contract changes.' : `✅ **Contract gate passed** (${changesIn(changes)}).${release}`;
    }
  }
}

/** " They call for a **major** release…": the semver verdict, and the version needed when the head's is too small. */
function releaseSentence(review: ServerReview): string {
  const release = review.release;
  const bump = release?.bump ?? review.report?.summary.semverBump ?? 'none';
  if (bump === 'none') return '';
  const calls = ` They call for a **${bump}** release`;
  const previous = release?.previousVersion;
  const current = release?.currentVersion;
  if (release?.check === 'too-small') {
    const needs = [
      ...(release.requiredVersion !== undefined ? [`**version ${mdCode(release.requiredVersion)} or later**${current !== undefined ? `, but the server says ${mdCode(current)}` : ''}`] : []),
      ...(release.requiredTag !== undefined ? [`**a tag ${mdCode(release.requiredTag)} or later**, but the release is tagged ${mdCode(release.currentTag ?? '')}`] : []),
    ];
    const consequence = release.mode === 'fail' ? ' The version check fails until then.' : '';
    const message = needs.length === 0 && release.message !== undefined ? ` ${mdText(truncate(release.message, 500))}` : '';
    return `${calls}${needs.length > 0 ? `: ${needs.join('; and ')}` : ''}.${message}${consequence}`;
  }
  if (release?.check === 'ok') {
    const says = [
      ...(previous !== undefined && current !== undefined ? [`the version says so (${mdCode(previous)} → ${mdCode(current)})`] : []),
      ...(release.previousTag !== undefined && release.currentTag !== undefined ? [`the tag says so (${mdCode(release.previousTag)} → ${mdCode(release.currentTag)})`] : []),
    ];
    if (says.length > 0) return `${calls}, and ${says.join(' and ')}.`;
  }
  return `${calls}.`;
}

/** Every change of the report as the gate lists them: entry and severity. */
function everyChange(review: ServerReview): Array<{ entry: string; severity: Severity }> {
  const out: Array<{ entry: string; severity: Severity }> = [];
  const report = review.report;
  if (!report) return out;
  if (report.server) for (const d of report.server.deltas) out.push({ entry: 'server.', severity: d.severity });
  for (const kind of ENTRY_KINDS) {
    for (const [name, entry] of Object.entries(report[kind])) for (const d of entry.deltas) out.push({ entry: `${kind}.${name}`, severity: d.severity });
  }
  return out;
}


/** "116 breaking changes in 8 tools, 3 prompts and 101 resources", "2 breaking and 1 risky changes in 2 tools". */
function changesIn(changes: ReadonlyArray<{ entry: string; severity: Severity }>): string {
  const bySeverity = (['BREAKING', 'RISKY', 'SAFE', 'COSMETIC'] as const).map((s) => [s, changes.filter((c) => c.severity === s).length] as const).filter(([, n]) => n > 0);
  const counts = bySeverity.map(([s, n], i) => (i === bySeverity.length - 1 ? `${n} ${s.toLowerCase()} change${n === 1 && bySeverity.length === 1 ? '' : 's'}` : `${n} ${s.toLowerCase()}`));
  const entries = new Map<string, Set<string>>();
  for (const { entry } of changes) {
    const dot = entry.indexOf('.');
    const kind = dot < 0 ? entry : entry.slice(0, dot);
    entries.set(kind, (entries.get(kind) ?? new Set()).add(entry));
  }
  const places = [...entries.entries()].map(([kind, names]) => (isEntryKind(kind) ? countOf(kind, names.size) : 'the server itself'));
  return `${andList(counts)} in ${andList(places)}`;
}

function isEntryKind(kind: string): kind is EntryKind {
  return (ENTRY_KINDS as readonly string[]).includes(kind);
}

function andList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * Why a review could not be made, paragraph by paragraph: a sentence reads as text (it wraps;
 * a code block does not, and GitHub cuts its long lines at the edge), the indented lines under
 * it (a server's stderr, the attempts) and any other output of several lines as a code block.
 */
export function whatWentWrong(why: string): string {
  return truncate(why, 6_000).split(/(?:\r?\n|\r){2,}/).map(wentWrongParagraph).join('\n\n');
}

function wentWrongParagraph(text: string): string {
  const [first = '', ...rest] = text.split(/\r?\n|\r/);
  if (rest.length === 0) return `> ${mdText(first)}`;
  if (/^\s/.test(first) || !rest.every((line) => /^\s/.test(line))) return mdCodeBlock(text, 'text');
  const indent = Math.min(...rest.map((line) => /^\s*/.exec(line)![0].length));
  return `> ${mdText(first)}\n\n${mdCodeBlock(rest.map((line) => line.slice(indent)).join('\n'), 'text')}`;
}

function problems(review: ServerReview): string[] {
  const out: string[] = [];
  if (review.reviewError !== undefined) out.push(whatWentWrong(review.reviewError));
  if (review.stale !== undefined) {
    const consequence = review.lockfileCheck === 'fail' ? ' This check fails until it is fixed.' : '';
    out.push(`> [!WARNING]\n> **Stale lockfile**: ${mdText(truncate(review.stale.message, 2_000))} Fix it with ${mdCode(review.stale.command)} and commit ${mdCode(review.lockfile)}.${consequence}`);
  }
  return out;
}

function accepted(review: ServerReview): string {
  if (review.accepted.length === 0) return '';
  const items = review.accepted.slice(0, 50).map((a) => {
    const until = a.expires ? ` until ${mdText(a.expires)}` : '';
    return `- ${a.severity} in ${mdCode(a.entry)} (${mdCode(a.fingerprint)})${until}: ${mdText(truncate(a.reason, 300))}`;
  });
  if (review.accepted.length > items.length) items.push(`- … and ${review.accepted.length - items.length} more`);
  return `<details>\n<summary>Accepted by the allow-list (${review.accepted.length})</summary>\n\n${items.join('\n')}\n\n</details>`;
}

/** Up to this many allow-list entries are shown open; more are collapsed. */
const OPEN_SNIPPET = 3;

/**
 * For a blocked gate: the allow-list entries to paste, every one (a partial list would leave
 * the rest failing), with a reason to fill in. When they take more than `maxLength`, the
 * comment says where the whole list is instead (the job summary has room for it).
 */
function allowSnippetSection(review: ServerReview, maxLength: number): string {
  const snippet = allowSnippet(review);
  if (!snippet) return '';
  if (snippet.text.length > maxLength) {
    const link = runLink(review.runUrl);
    const summary = link ? `the [job summary](${link}) of this run` : 'the job summary of this run';
    return `The ${snippet.count} allow-list entries for these changes are too many for this comment: copy them from ${summary}, into ${mdCode(snippet.file)}.`;
  }
  const where = snippet.form === 'file' ? `Create ${mdCode(snippet.file)} with:` : `Add to the ${mdCode('allow')} list of ${mdCode(snippet.file)}:`;
  const body = `${where}\n\n${mdCodeBlock(snippet.text, 'json')}`;
  if (snippet.count <= OPEN_SNIPPET) return body;
  return `<details>\n<summary>Allow-list entries for these changes (${snippet.count})</summary>\n\n${body}\n\n</details>`;
}

function notes(review: ServerReview): string {
  const all = [...review.notes, ...review.allowNotes].slice(0, 20);
  return all.map((n) => `- ${mdText(truncate(n, 500))}`).join('\n');
}

function reproduce(review: ServerReview): string {
  if (review.reproduce.length === 0) return '';
  return `<details>\n<summary>Reproduce locally</summary>\n\n${mdCodeBlock(review.reproduce.join('\n'), 'sh')}\n\n</details>`;
}

function footer(review: ServerReview): string {
  const base = review.baseline ? `${mdText(truncate(review.baseline, 300))} → ` : '';
  const head = { server: 'the server', lockfile: 'the lockfile', file: 'the contracts file', removed: 'removed from the config' }[review.headSource];
  return footerLinks(review.runUrl, `job ${mdCode(review.job)} · ${base}${head} at ${shortSha(review.headSha)}`, review.report !== null);
}

/** The links to the run; its job summary is pointed to only when there is a report in it. */
function footerLinks(runUrl: string | undefined, context = '', hasReport = false): string {
  const link = runLink(runUrl);
  const run = link ? ` · [workflow run](${link})${hasReport ? ': its job summary has the full report' : ''}` : '';
  return `<sub>mcp-contract-guard${run}${context ? ` · ${context}` : ''}</sub>`;
}

/**
 * The run's URL when it is one (`https://HOST/OWNER/REPO/actions/runs/ID`), else undefined:
 * in `comment-only` mode it comes from a review file a pull request may have forged, and a
 * link is only ever made to a workflow run.
 */
export function runLink(url: string | undefined): string | undefined {
  return url !== undefined && /^https?:\/\/[A-Za-z0-9.-]+(:\d+)?(\/[A-Za-z0-9_.-]+){2,3}\/actions\/runs\/\d+$/.test(url) ? url : undefined;
}
