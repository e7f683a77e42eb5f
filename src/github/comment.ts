import { renderMarkdown } from '../report/index.js';
import { truncate } from '../report/escape.js';
import { mdCode, mdCodeBlock, mdText, plural, quietMention, shortSha, truncateMarkdown } from './markdown.js';
import type { ServerReview } from './review.js';
import { commentMarker } from './sticky.js';

/** GitHub rejects comment bodies over 65,536 characters; keep a margin for its own counting. */
export const COMMENT_LIMIT = 65_000;
/** A job summary may hold 1 MiB per step; several servers share it. */
export const SUMMARY_LIMIT = 900_000;

const FULL_REPORT_NOTE = '> [!NOTE]\n> This comment was shortened to fit GitHub\'s size limit. The full report is in the job summary of this run and in its delta artifact.';

/**
 * The sticky PR comment for one server: the marker, the gate's verdict, the report grouped by
 * severity, what was accepted, and how to reproduce it. Everything from the PR is escaped.
 */
export function renderComment(review: ServerReview, maxLength = COMMENT_LIMIT): string {
  const marker = commentMarker(review.id, review.job);
  const before = [marker, status(review), ...problems(review)].filter((s) => s !== '').join('\n\n');
  const after = [accepted(review), allowSnippet(review), notes(review), reproduce(review), footer(review)].filter((s) => s !== '').join('\n\n');
  // The report gets what the fixed parts leave; they are bounded, so it always gets a fair share.
  const room = maxLength - before.length - after.length - 8;
  const report = review.report ? renderMarkdown(review.report, { title: title(review), maxLength: Math.max(1_000, room) }) : '';
  const body = [before, report.trimEnd(), after].filter((s) => s !== '').join('\n\n') + '\n';
  return truncateMarkdown(body, maxLength, FULL_REPORT_NOTE);
}

/** The comment after a later push reverted every change: short, and still findable by its marker. */
export function renderQuietComment(review: ServerReview): string {
  const compared = review.baseline ? ` match ${mdCode(review.lockfile)} at ${mdText(review.baseline)}` : ' match the lockfile';
  return [
    commentMarker(review.id, review.job),
    `### MCP contract changes in ${mdCode(review.name)}: none`,
    `✅ The contracts at ${shortSha(review.headSha)}${compared}. An earlier push to this pull request changed them; those changes are gone.`,
    footer(review),
  ].join('\n\n') + '\n';
}

/** The job summary section for one server: the same content, never shortened for the comment limit. */
export function renderSummarySection(review: ServerReview, maxLength: number): string {
  const parts = [status(review), ...problems(review)];
  if (review.report) parts.push(renderMarkdown(review.report, { title: title(review), maxLength: Math.max(1_000, maxLength - 4_000) }).trimEnd());
  parts.push(accepted(review), allowSnippet(review), notes(review), reproduce(review));
  return truncateMarkdown(parts.filter((s) => s !== '').join('\n\n') + '\n', maxLength, '> [!NOTE]\n> Shortened to fit the job summary: the delta artifact holds the full report.');
}

function title(review: ServerReview): string {
  return `MCP contract changes in ${mdCode(review.name)}`;
}

function status(review: ServerReview): string {
  const { gate, failOn } = review;
  const threshold = failOn === 'never' ? '' : mdCode(`fail-on: ${failOn}`);
  const count = gate.blocking.length;
  switch (gate.verdict) {
    case 'unknown':
      return `> [!CAUTION]\n> **Could not review ${mdCode(review.name)}** at ${shortSha(review.headSha)}, so this check fails. What went wrong:`;
    case 'blocked': {
      const how = review.approveLabel
        ? `If they are intended, add the label ${mdCode(review.approveLabel)} to this pull request, or accept them by fingerprint in the ${mdCode('allow')} list of ${mdCode('mcp-contract-guard.config.json')} (snippet below).`
        : `If they are intended, accept them by fingerprint in the ${mdCode('allow')} list of ${mdCode('mcp-contract-guard.config.json')} (snippet below).`;
      const ignored = review.approvalIgnored !== undefined ? `\n>\n> ${mdText(review.approvalIgnored)}` : '';
      return `> [!CAUTION]\n> **Contract gate failed**: ${plural(count, 'change')} at or above ${threshold} ${count === 1 ? 'is' : 'are'} not approved. ${how}${ignored}`;
    }
    case 'approved': {
      const by = review.approval?.by ? ` (added by ${quietMention(review.approval.by)})` : '';
      return `> [!NOTE]\n> **Approved by label** ${mdCode(review.approval?.label ?? '')}${by}: the gate passes despite ${plural(count, 'change')} at or above ${threshold}.`;
    }
    case 'accepted':
      return `> [!NOTE]\n> **Contract gate passed**: every change at or above ${threshold} is accepted by the allow-list (listed below).`;
    case 'below-threshold':
      return `**Contract gate passed**: no change reaches ${threshold}.`;
    case 'not-gated':
      return `The contract gate is off (${mdCode('fail-on: never')}): this review only reports.`;
    case 'clean':
      return '**Contract gate passed**: no contract changes.';
  }
}

function problems(review: ServerReview): string[] {
  const out: string[] = [];
  if (review.reviewError !== undefined) out.push(mdCodeBlock(truncate(review.reviewError, 6_000), 'text'));
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

/** For a blocked gate: the allow-list entries to paste, with a reason to fill in. */
function allowSnippet(review: ServerReview): string {
  if (review.gate.verdict !== 'blocked') return '';
  // A placeholder, not a date: whoever accepts a change picks how long the acceptance lasts.
  const expires = 'YYYY-MM-DD';
  const entries = review.gate.blocking.slice(0, 30).map((b) =>
    JSON.stringify({ fingerprint: b.fingerprint, reason: truncate(`${b.severity} ${b.kind} in ${b.entry}${b.field ? ` ${b.field}` : ''}: why it is fine`, 200), expires }),
  );
  return `<details>\n<summary>Allow-list entries for these changes</summary>\n\n${mdCodeBlock(`"allow": [\n  ${entries.join(',\n  ')}\n]`, 'json')}\n\n</details>`;
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
  const base = review.baseline ? `${mdText(review.baseline)} → ` : '';
  const head = { server: 'the server', lockfile: 'the lockfile', file: 'the contracts file', removed: 'removed from the config' }[review.headSource];
  return `<sub>mcp-contract-guard · job ${mdCode(review.job)} · ${base}${head} at ${shortSha(review.headSha)}</sub>`;
}

