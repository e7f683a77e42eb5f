/**
 * What a reader sees of each real release pair (test/fixtures/real-world/verdicts names the 26
 * pairs; the server-everything rewrite is added for its size), in every format the product
 * writes: the JSON report, text, Markdown, XML, SARIF, the changelog section and the pull-request
 * comment. Kept in test/fixtures/real-world/reports/, so a change to any renderer or any rule's
 * wording shows as a diff of these files, to be read line by line in review.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diffContracts, type DiffReport } from '../../src/diff/index.js';
import { renderComment } from '../../src/github/render/comment.js';
import { changelogSection, renderChangelogMarkdown } from '../../src/report/changelog.js';
import { renderJson, renderMarkdown, renderSarif, renderText, renderXml } from '../../src/report/index.js';
import { loadDump } from '../diff/helpers.js';
import { reviewOf } from './comment-fixtures.js';

const verdicts = new URL('../fixtures/real-world/verdicts/', import.meta.url);
const PAIRS: Array<readonly [string, string]> = [
  ...readdirSync(verdicts)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => (JSON.parse(readFileSync(new URL(f, verdicts), 'utf8')) as { pair: [string, string] }).pair),
  ['server-everything@2025.11.25', 'server-everything@2026.1.14'],
];

/** Generous budgets: a busy machine must not turn a verdict into a "not compared in time" note. */
const OPTIONS = { semanticBudgetMs: 600_000, semanticPairTimeoutMs: 120_000 };

const FORMATS: Record<string, (report: DiffReport, a: string, b: string) => string> = {
  'report.json': (report) => renderJson(report),
  'report.txt': (report) => renderText(report, { color: false }),
  'report.md': (report) => renderMarkdown(report),
  'report.xml': (report) => renderXml(report),
  'report.sarif': (report) => renderSarif(report, { lockfilePath: 'mcp-contracts.lock.json' }),
  'changelog.md': (report, a, b) =>
    renderChangelogMarkdown({
      lockfile: 'mcp-contracts.lock.json',
      from: a,
      to: b,
      order: 'newest-first',
      sections: [changelogSection({ tags: [`v${b.split('@')[1]}`], commit: 'c'.repeat(40), date: '2030-01-01', previousVersion: a.split('@')[1] as string, version: b.split('@')[1] as string }, report)],
      notes: [],
    }),
  'comment.md': (report, _a, b) => renderComment(reviewOf(b.split('@')[0] as string, report)),
};

describe('real-world reports, every format', () => {
  for (const [a, b] of PAIRS) {
    it(`${a} → ${b}`, async () => {
      const report = await diffContracts(loadDump(a), loadDump(b), OPTIONS);
      for (const [file, render] of Object.entries(FORMATS)) {
        await expect(render(report, a, b)).toMatchFileSnapshot(`../fixtures/real-world/reports/${a}__${b.split('@')[1]}/${file}`);
      }
    });
  }
});
