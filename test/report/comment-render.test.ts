/**
 * The PR comment and the job summary of real releases, rendered as GitHub renders them: the
 * digest a maintainer reads first (verdict, what breaks for callers, each fix once), escaping
 * that leaves no backslash visible and lets no server text become markup, the links to the
 * run, and what happens past GitHub's size limit.
 */
import { describe, expect, it } from 'vitest';
import { COMMENT_LIMIT, renderComment } from '../../src/github/render/comment.js';
import { renderSummary } from '../../src/github/render/summary.js';
import { entryReports, type DiffReport, type ServerReview } from '../../src/protocol/index.js';
import { renderDetails } from '../../src/report/markdown.js';
import { diffContracts } from '../../src/diff/index.js';
import { normalizeCapture } from '../../src/contract/normalize.js';
import { RUN_URL, releaseOf, releaseReport, reviewOf } from './comment-fixtures.js';
import { expectRendersCleanly, renderGfm, shownText } from './gfm.js';
import { PAYLOADS, sampleReport } from './sample.js';

/** The part of a comment above its first collapsed block: what shows without a click. */
function firstScreen(comment: string): string {
  const end = comment.indexOf('<details>');
  return end < 0 ? comment : comment.slice(0, end);
}

/** Every tool, prompt or resource with a BREAKING change, by the name callers use (the old one when renamed). */
function breakingEntries(report: DiffReport): string[] {
  return [...entryReports(report)]
    .filter(({ kind, entry }) => kind !== 'server' && entry.deltas.some((d) => d.severity === 'BREAKING'))
    .map(({ name, entry }) => entry.deltas.find((d) => d.renamedFrom !== undefined)?.renamedFrom ?? name);
}

const RELEASES = [
  { what: 'many BREAKING changes, renames among them', from: 'server-everything@2025.11.25', to: 'server-everything@2026.1.14' },
  { what: 'one BREAKING change repeated in 30 tools', from: 'chrome-devtools@1.10.1', to: 'chrome-devtools@1.11.0' },
  { what: 'a new required argument in 20 tools', from: 'chrome-devtools@1.5.0', to: 'chrome-devtools@1.10.1' },
  { what: 'renamed tools', from: 'tavily@0.2.12', to: 'tavily@0.2.16' },
  { what: 'output changes', from: 'inventory@1.0.0', to: 'inventory@1.1.0' },
  { what: 'only SAFE changes', from: 'server-memory@2025.11.25', to: 'server-memory@2026.7.4' },
  { what: 'more detail than a comment holds', from: 'firecrawl@3.22.0', to: 'firecrawl@3.26.0' },
] as const;

describe('the comment and summary of real releases', () => {
  for (const { what, from, to } of RELEASES) {
    describe(`${from} → ${to} (${what})`, async () => {
      const report = await releaseReport(from, to);
      const review = reviewOf(to.split('@')[0]!, report);
      const comment = renderComment(review);
      const summary = renderSummary([review], []);

      it('renders as GitHub would with no stray backslash, no markup from the server, and tables that keep their columns', () => {
        expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
        expectRendersCleanly(comment, [RUN_URL]);
        expectRendersCleanly(summary, []);
      });

      it('names every entry that breaks callers above the first collapsed block, in under 60 lines', () => {
        const top = firstScreen(comment);
        expect(top.split('\n').length).toBeLessThan(60);
        const shown = shownText(renderGfm(top));
        for (const name of breakingEntries(report).filter((n) => !n.includes('://'))) expect(shown, name).toContain(name);
        const semver = report.summary.semverBump;
        expect(top).toContain(`They call for a **${semver}** release`);
      });

      it('links the workflow run, whose job summary has the full report', () => {
        expect(comment).toContain(`[workflow run](${RUN_URL}): its job summary has the full report`);
      });
    });
  }

  it('leads with the verdict: the gate, how many changes break callers where, the release, what to do', async () => {
    const report = await releaseReport('server-everything@2025.11.25', 'server-everything@2026.1.14');
    const comment = renderComment(reviewOf('server-everything', report));
    const verdict = comment.split('\n\n')[1]!;
    expect(verdict).toBe(
      '> [!CAUTION]\n> **Contract gate failed** for `server-everything`: 116 breaking changes in 10 tools, 3 prompts, 100 resources and 1 resource template are not approved. ' +
        'They call for a **major** release. If they are intended, add the label `contract-change-approved` to this pull request, or accept them in the allow-list (entries below).',
    );
    // No risky change: the URL gzip-file-as-resource gives an argument as its default is data, not a poisoning cue.
    expect(comment.split('\n\n')[2]).toBe('🔴 116 breaking · 🟢 21 safe · ⚪ 24 cosmetic');
    // Renamed entries are listed by the name callers still use.
    expect(comment).toContain('`add → get-sum`, `getTinyImage → get-tiny-image`, `longRunningOperation → trigger-long-running-operation` | renamed |');
    expect(comment).toContain('| 🔴 | tool `structuredContent → get-structured-content` | renamed; `location`: accepts only `"Chicago"`, `"Los Angeles"`, `"New York"` |');
    expect(comment).toContain('| 🔴 | prompt `resource_prompt → resource-prompt` | renamed; now requires argument `resourceType` |');
    expect(comment).toContain('| 🔴 | tools `sampleLLM`, `zip` | removed |');
    // 100 removed resources: one row, a few named.
    expect(comment).toMatch(/\| 🔴 \| resources `test:\/\/static\/resource\/1`, .* and 94 more \| removed \|/);
    // Each fix once, however many changes it fixes.
    expect(comment.match(/Keep the old name registered as an alias of the renamed tool/g)).toHaveLength(1);
    expect(comment).toContain('- **tool renamed** (8): Keep the old name registered as an alias of the renamed tool for a release.');
  });

  it('groups identical changes: one row and one detail item for 30 tools', async () => {
    const report = await releaseReport('chrome-devtools@1.10.1', 'chrome-devtools@1.11.0');
    const comment = renderComment(reviewOf('chrome-devtools', report));
    const row = comment.split('\n').find((line) => line.endsWith('| rejects unknown arguments |'))!;
    expect(row.match(/`[a-z_]+`/g)).toHaveLength(29);
    expect(comment).toContain('| 🔴 | `resize_page` | rejects unknown arguments; `height`, `width`: tighter range; `height`, `width`: type `number` → `integer` |');
    expect(comment).toContain('- arguments: undeclared properties are now rejected. — 30 tools: `click`, `close_page`,');
    expect(comment.match(/undeclared properties are now rejected/g)).toHaveLength(1);
    // The sentence first, then where: path, rule, values.
    expect(comment).toContain('  <sub>`inputSchema.additionalProperties` · `additional-properties-forbidden` · `{}` → `false`</sub>');
  });

  it('explains output changes as output changes', async () => {
    const report = await releaseReport('inventory@1.0.0', 'inventory@1.1.0');
    const comment = renderComment(reviewOf('inventory', report));
    expect(comment).toContain('| 🔴 | `get_item` | no longer returns `name`, `quantity`, `sku` |');
    expect(comment).toContain('| 🟠 | `get_item` | now always returns `result` |');
    expect(comment).toContain('  <sub>output (what the server returns) · `outputSchema.properties.name` · `property-removed-ignored`');
  });

  it('names the prompt argument that became required, not the word "required"', async () => {
    const prompts = (required: boolean) => [{ name: 'summarize', description: 'Summarize a document.', arguments: [{ name: 'doc', required: true }, { name: 'style', required }] }];
    const contracts = (required: boolean) => normalizeCapture({ server: { name: 'docs', version: '1.0.0' }, protocolVersion: '', era: 'legacy', tools: [], prompts: prompts(required), resources: [], resourceTemplates: [] }).contracts;
    const comment = renderComment(reviewOf('docs', await diffContracts(contracts(false), contracts(true))));
    expect(comment).toContain('| 🔴 | prompt `summarize` | now requires argument `style` |');
  });

  it('shows a reworded description as a diff block, sentence by sentence', async () => {
    const report = await releaseReport('chrome-devtools@1.10.1', 'chrome-devtools@1.11.0');
    const comment = renderComment(reviewOf('chrome-devtools', report));
    expect(comment).toContain(
      '- colorScheme: description reworded. — tool `emulate`  \n  <sub>`inputSchema.properties.colorScheme.description` · `description-changed`</sub>\n' +
        '  ```diff\n    Emulate the dark or the light mode.\n  - Set to "auto" to reset to the default.\n  + Omit or set to "auto" to reset to the default.\n  ```',
    );
  });

  it('only SAFE changes: the gate passes, nothing breaks, a minor release', async () => {
    const report = await releaseReport('server-memory@2025.11.25', 'server-memory@2026.7.4');
    const comment = renderComment(reviewOf('server-memory', report));
    expect(comment).toContain('✅ **Contract gate passed**: no change reaches `fail-on: BREAKING` (28 safe changes in the server itself, 9 tools and 1 resource). They call for a **minor** release.');
    expect(comment).not.toContain('What breaks for callers');
    expect(comment).not.toContain('<details open');
  });

  it('a union type reads as it is written: no backslash before its bars, in or out of a table', async () => {
    // The full detail: this release's comment is over the size limit, which drops values first.
    const details = renderDetails(await releaseReport('firecrawl@3.22.3', 'firecrawl@3.26.0'), 'full');
    expect(details).toContain('`"high" | "low" | "medium"`');
    expect(shownText(renderGfm(details))).toContain('"high" | "low" | "medium"');
    const inventory = renderComment(reviewOf('inventory', await releaseReport('inventory@1.0.0', 'inventory@1.1.0')));
    expect(inventory).toContain('`integer \\| null`'); // in a table cell, where GitHub removes the backslash
    expect(shownText(renderGfm(inventory))).toContain('integer | null');
  });

  it('over the size limit: detail goes first, the top says the comment is partial and where the rest is', async () => {
    const report = await releaseReport('firecrawl@3.22.0', 'firecrawl@3.26.0');
    const review = reviewOf('firecrawl', report);
    expect(renderDetails(report, 'full').length).toBeGreaterThan(COMMENT_LIMIT);
    const comment = renderComment(review);
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    const partial = comment.indexOf('**Partial report**: some detail is left out to fit the size limit.');
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(comment.indexOf('What breaks for callers'));
    expect(comment).toContain(`The [job summary](${RUN_URL}) of this run, or its delta artifact, has every change.`);
    // SAFE and COSMETIC changes lose their detail (values, diffs) before anything is dropped; BREAKING ones keep theirs.
    expect(comment).toContain('<summary>⚪ 90 COSMETIC changes</summary>');
    expect(comment).not.toContain('```diff');
    expect(comment).toContain('  <sub>`inputSchema.properties.limit.type` · `type-narrowed` · `"number"` → `"integer"`</sub>');
    // No internal budget is quoted.
    expect(comment).not.toMatch(/\d[\d,]*\s*characters|65[,.]?[05]\d\d/);
    // The job summary has room for all of it.
    const summary = renderSummary([review], []);
    expect(summary).not.toContain('Partial report');
    expect(summary).toContain('```diff');
  });

  it('far over the limit: one line per change, then cut, keeping the verdict, what to paste and the links', async () => {
    const report = await releaseReport('firecrawl@3.22.0', 'firecrawl@3.26.0');
    const comment = renderComment(reviewOf('firecrawl', report), 8_000);
    expect(comment.length).toBeLessThanOrEqual(8_000);
    expect(comment).toContain('**Contract gate failed** for `firecrawl`');
    expect(comment).toContain('**Partial report**');
    expect(comment).toMatch(/The 71 SAFE and 90 COSMETIC changes are not listed here/);
    expect(comment).toContain(`The 14 allow-list entries for these changes are too many for this comment: copy them from the [job summary](${RUN_URL}) of this run, into \`mcp-contract-guard.config.json\`.`);
    expect(comment).toContain(`[workflow run](${RUN_URL})`);
    expectRendersCleanly(comment, [RUN_URL]);
    const tiny = renderComment(reviewOf('firecrawl', report), 3_000);
    expect(tiny.length).toBeLessThanOrEqual(3_000);
    expect(tiny).toContain('Cut here');
    expect((tiny.match(/<details>/g) ?? []).length).toBe((tiny.match(/<\/details>/g) ?? []).length);
    expectRendersCleanly(tiny, [RUN_URL]);
  });
});

describe('marks, approvals and the release verdict', () => {
  it('marks allow-listed and approved changes where they are listed, and calls out what is new since the approval', async () => {
    const report = await releaseReport('inventory@1.0.0', 'inventory@1.1.0');
    const breaking = [...entryReports(report)].flatMap(({ name, entry }) => entry.deltas.filter((d) => d.severity === 'BREAKING').map((d) => ({ name, d })));
    const stockLevel = breaking.filter((b) => b.name === 'stock_level').map((b) => b.d.fingerprint);
    const getItem = breaking.filter((b) => b.name === 'get_item').map((b) => b.d.fingerprint);
    const accepted = breaking.filter((b) => b.name === 'get_item').slice(0, 1).map((b) => ({ entry: 'tools.get_item', severity: 'BREAKING' as const, fingerprint: b.d.fingerprint, reason: 'coordinated with callers' }));
    const base = reviewOf('inventory', report, { accepted });
    const review: ServerReview = {
      ...base,
      approvalCoverage: { approvedFingerprints: base.gate.blocking.map((b) => b.fingerprint).filter((f) => !stockLevel.includes(f)), newSinceApproval: stockLevel },
    };
    const comment = renderComment(review);
    expect(comment).toContain('**Contract gate failed** for `inventory`: 1 breaking change in 1 tool is new since the label `contract-change-approved` was added (marked 🆕 below)');
    expect(comment).toContain('| 🔴 | `stock_level` | `result` (in results): type `string` → `integer \\| null` · 🆕 new since the approval |');
    expect(comment).toMatch(/property "name" is no longer declared\. — tool `get_item` · ✅ allow-listed {2}\n/);
    expect(comment).toMatch(/— tool `get_item` · ✅ approved {2}\n/);
    expect(getItem.length).toBeGreaterThan(0);
    expectRendersCleanly(comment, [RUN_URL]);
  });

  it('says which version the release needs when the server\'s is too small', async () => {
    const report = await releaseReport('inventory@1.0.0', 'inventory@1.1.0');
    const review = reviewOf('inventory', report, { release: { bump: 'major', previousVersion: '1.0.0', currentVersion: '1.1.0', requiredVersion: '2.0.0', check: 'too-small', mode: 'fail' } });
    expect(renderComment(review)).toContain('They call for a **major** release: **version `2.0.0` or later**, but the server says `1.1.0`. The version check fails until then.');
    const ok = reviewOf('inventory', report, { release: { bump: 'major', previousVersion: '1.4.0', currentVersion: '2.0.0', check: 'ok', mode: 'warn' } });
    expect(renderComment(ok)).toContain('They call for a **major** release, and the version says so (`1.4.0` → `2.0.0`).');
  });

  it('shows a severity that configuration re-levelled as such', async () => {
    const report = await diffContracts(releaseOf('inventory@1.0.0'), releaseOf('inventory@1.1.0'), { severityOverrides: { 'type-changed': 'RISKY' } });
    const comment = renderComment(reviewOf('inventory', report));
    expect(comment).toContain('| 🟠 | `stock_level` | `result` (in results): type `string` → `integer \\| null` (RISKY by configuration) |');
    expect(comment).toContain('· RISKY by configuration (the rule says BREAKING)');
  });
});

describe('what the pull request and the server control', () => {
  for (const [name, payload] of Object.entries(PAYLOADS)) {
    it(`hostile ${name}: names, notes and texts render as text, in the comment and the summary`, async () => {
      const report = await sampleReport(payload);
      const review = reviewOf(`inventory${payload}`, report, { notes: [payload], approvalIgnored: payload, baseline: `main${payload}`, failOn: 'RISKY' });
      const comment = renderComment(review);
      expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
      expectRendersCleanly(comment, [RUN_URL]);
      expectRendersCleanly(renderSummary([review], [payload]), []);
    });
  }

  it('a run link that is not one of a workflow run is not linked', async () => {
    const report = await sampleReport();
    for (const runUrl of ['javascript:alert(1)', 'https://evil.example/phish', `${RUN_URL})[x](https://evil.example`, `${RUN_URL} "title"`]) {
      const comment = renderComment(reviewOf('inventory', report, { runUrl }));
      expect(comment).not.toContain('[workflow run]');
      expectRendersCleanly(comment, []);
    }
  });

  it('a review that could not be made: a short body saying why and what to do, linking the run', () => {
    const review = reviewOf('inventory', { ...({} as DiffReport) }, {});
    const failed: ServerReview = { ...review, report: null, reviewError: 'The command "nope" was not found on PATH.', gate: { pass: false, verdict: 'unknown', blocking: [], failures: ['x'] } };
    const comment = renderComment(failed);
    expect(comment).toContain('**Could not review `inventory` at `9b7e3d0`**, so this check fails.');
    expect(comment).toContain('\n\n> The command "nope" was not found on PATH.\n\n');
    expect(comment).toContain(`the log of the [workflow run](${RUN_URL}) has the details`);
    expect(comment).not.toContain('What breaks');
    // No report was made: the footer links the run without promising one in its job summary.
    expect(comment).not.toContain('full report');
    expectRendersCleanly(comment, [RUN_URL]);
  });
});

describe('a review the gate cannot vouch for', () => {
  it('keeps the changes under why the check fails (comment-only, when the run that wrote the review file did not succeed)', async () => {
    const report = await releaseReport('inventory@1.0.0', 'inventory@1.1.0');
    const why = 'The run that wrote this review file concluded "failure", not "success", so this comment does not show the review as passing.';
    const review: ServerReview = { ...reviewOf('inventory', report), reviewError: why, gate: { pass: false, verdict: 'unknown', blocking: [], failures: [why] } };
    const comment = renderComment(review);
    expect(comment).toContain('**Could not review `inventory`** at `9b7e3d0`, so this check fails. What went wrong:');
    expect(comment).toContain('\n\n> The run that wrote this review file concluded "failure", not "success", so this comment does not show the review as passing.\n\n');
    expect(comment).toContain('#### What breaks for callers');
    expectRendersCleanly(comment, [RUN_URL]);
  });
});

describe('the checker', () => {
  it('catches what it is there to catch', () => {
    expect(() => expectRendersCleanly('a `"a" \\| "b"` b\n', [])).toThrow(/\\\\/);
    expect(() => expectRendersCleanly('| a | b |\n| --- | --- |\n| `x|y` | z |\n', [])).toThrow(/more than 2 columns/);
    expect(() => expectRendersCleanly('see www.evil.example\n', [])).toThrow(/link/);
    expect(() => expectRendersCleanly('hi @octocat\n', [])).toThrow();
    expect(() => expectRendersCleanly('<img src=x>\n', [])).toThrow(/tags/);
    expect(() => expectRendersCleanly('`@octocat` and `<img>` and `a \\| b` in code, outside a table: | fine |\n', [])).toThrow(/\\\\/);
    expectRendersCleanly('`@octocat` and `<img>` in code\n\n| a |\n| --- |\n| `x \\| y` |\n', []);
  });
});
