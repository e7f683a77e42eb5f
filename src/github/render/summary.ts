import { largestBump, overallVersionCheck } from '../../policy/semver.js';
import { SEVERITIES, maxSeverityOf, type Severity, type ServerReview } from '../../protocol/index.js';
import { renderSummarySection, serverName, SUMMARY_LIMIT } from './comment.js';
import { BADGES, mdCell, mdText, truncate } from '../../report/index.js';

/**
 * The job summary: one table over every server, the run's warnings, then each server's full
 * review (the comment may have been shortened; this is where the rest lives).
 */
export function renderSummary(reviews: ServerReview[], warnings: string[]): string {
  const lines = ['## MCP contract review', ''];
  // Said once for the run (every server's review carries the same alert).
  for (const alert of new Set(reviews.flatMap((r) => (r.alert === undefined ? [] : [r.alert])))) lines.push(`> [!CAUTION]\n> ${mdText(truncate(alert, 3_000))}`, '');
  if (reviews.length > 0) {
    lines.push('| Server | Worst change | BREAKING | RISKY | SAFE | COSMETIC | Lockfile | Gate |', '| --- | --- | ---: | ---: | ---: | ---: | --- | --- |');
    for (const review of reviews) {
      const counts = review.report?.summary.counts;
      const worst = review.report === null ? '⚠️ not compiled' : review.report.summary.maxSeverity === null ? 'none' : `${BADGES[review.report.summary.maxSeverity]} ${review.report.summary.maxSeverity}`;
      const cells = SEVERITIES.map((s) => (counts ? String(counts[s]) : '–'));
      const lockfile = review.stale ? '⚠️ stale' : checksFreshness(review) && review.report ? 'fresh' : '–';
      lines.push(`| ${mdCell(serverName(review.name))} | ${worst} | ${cells.join(' | ')} | ${lockfile} | ${gateCell(review)} |`);
    }
    lines.push('');
  }
  for (const warning of warnings) lines.push(`> [!WARNING]\n> ${mdText(truncate(warning, 3_000))}`, '');
  const head = `${lines.join('\n')}\n`;
  const share = Math.floor((SUMMARY_LIMIT - head.length) / Math.max(1, reviews.length));
  const sections = reviews.map((r) => `### ${serverName(r.name)}\n\n${renderSummarySection(r, Math.max(2_000, share - 200))}`);
  return [head, ...sections].join('\n');
}

function gateCell(review: ServerReview): string {
  // Changes approved, allow-listed or not gated can still fail the check (a stale lockfile, a version too small).
  const unless = (passing: string, why: string) => (review.gate.pass ? passing : `❌ fails (${why})`);
  switch (review.gate.verdict) {
    case 'blocked':
    case 'unknown':
      return '❌ fails';
    case 'approved':
      return unless('✅ approved by label', 'changes approved by label');
    case 'accepted':
      return unless('✅ allow-listed', 'changes allow-listed');
    case 'not-gated':
      return unless('off', 'change gate off');
    default:
      return review.gate.pass ? '✅ passes' : '❌ fails';
  }
}

/** A lockfile is checked against what was compiled: a live server's contracts or a contracts file, not the head lockfile itself. */
function checksFreshness(review: ServerReview): boolean {
  return (review.headSource === 'server' || review.headSource === 'file') && review.lockfileCheck !== 'off';
}

/** The step's outputs, over every server of the run. */
export function computeOutputs(reviews: ServerReview[], paths: { artifacts: string[]; report: string; review: string; sarif?: string }): Record<string, string> {
  const counts: Record<Severity, number> = { BREAKING: 0, RISKY: 0, SAFE: 0, COSMETIC: 0 };
  const severities: Severity[] = [];
  for (const review of reviews) {
    if (!review.report) continue;
    for (const s of SEVERITIES) counts[s] += review.report.summary.counts[s];
    if (review.report.summary.maxSeverity) severities.push(review.report.summary.maxSeverity);
  }
  const outputs: Record<string, string> = {
    'max-severity': maxSeverityOf(severities) ?? 'none',
    'breaking-count': String(counts.BREAKING),
    'risky-count': String(counts.RISKY),
    'safe-count': String(counts.SAFE),
    'cosmetic-count': String(counts.COSMETIC),
    changed: String(severities.length > 0),
    'lockfile-stale': String(reviews.some((r) => r.stale !== undefined)),
    gate: reviews.every((r) => r.gate.pass) ? 'pass' : 'fail',
    'semver-bump': largestBump(reviews.flatMap((r) => (r.report ? [r.report.summary.semverBump] : []))),
    'version-check': overallVersionCheck(reviews.flatMap((r) => (r.release ? [r.release.check] : []))),
    'artifact-path': paths.artifacts.join('\n'),
    'report-path': paths.report,
    'review-path': paths.review,
  };
  if (paths.sarif !== undefined) outputs['sarif-path'] = paths.sarif;
  return outputs;
}
