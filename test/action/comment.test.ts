/** The comment's text: escaping of what the PR controls, the size limit. (The review file: test/protocol/review-file.test.ts.) */
import { describe, expect, test } from 'vitest';
import { COMMENT_LIMIT, renderComment, renderQuietComment } from '../../src/github/render/comment.js';
import { truncateMarkdown } from '../../src/report/index.js';
import type { ServerReview } from '../../src/protocol/index.js';
import { commentMarker } from '../../src/github/io/sticky.js';
import { renderSummary } from '../../src/github/render/summary.js';
import { delta, reportOf, serverReview } from './reports.js';

/** The Markdown outside code spans and fences: where HTML and mentions would be live. */
function outsideCode(markdown: string): string {
  return markdown.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '').replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, '');
}

function review(overrides: Partial<ServerReview> = {}): ServerReview {
  return serverReview({
    baseline: 'the base of PR #7 (main @ abc1234)',
    baselineRef: 'a'.repeat(40),
    report: reportOf({ create_order: [delta('BREAKING', 'aaaa1111aaaa1111', { hint: 'Make it optional.' })], list_orders: [delta('SAFE', 'bbbb2222bbbb2222')] }),
    gate: { pass: false, verdict: 'blocked', blocking: [{ entry: 'tools.create_order', severity: 'BREAKING', kind: 'breaking-kind', field: 'inputSchema', fingerprint: 'aaaa1111aaaa1111' }], failures: ['x'] },
    approveLabel: 'contract-change-approved',
    reproduce: ['npx mcp-contract-guard check'],
    ...overrides,
  });
}

describe('the comment', () => {
  test('starts with the marker, says why the gate fails and how to approve, and offers the allow-list entries', () => {
    const body = renderComment(review());
    expect(body.startsWith(`${commentMarker('inventory', 'contracts')}\n`)).toBe(true);
    expect(body).toContain('**Contract gate failed** for `inventory`: 1 breaking change in 1 tool is not approved.');
    expect(body).toContain('add the label `contract-change-approved` to this pull request');
    expect(body).toContain('"fingerprint":"aaaa1111aaaa1111"');
    expect(body).toContain('**How to fix**\n- **required property added** (1): Make it optional.');
    expect(body).toContain('<sub>mcp-contract-guard · job `contracts` · the base of PR \\#7 \\(main @\u2060 abc1234\\) → the server at bbbbbbb</sub>');
  });

  test('what the PR controls cannot inject markup, mentions or a way out of a code block', () => {
    const hostile = '<img src=x onerror=alert(1)> @maintainers [click](https://evil.example) | ``` ';
    const body = renderComment(
      review({
        name: hostile,
        reviewError: `crashed:\n\`\`\`\n</details><script>@everyone</script>`,
        report: null,
        gate: { pass: false, verdict: 'unknown', blocking: [], failures: ['x'] },
        notes: [hostile],
        reproduce: ['npx mcp-contract-guard lock --command "```\n@here"'],
        approval: { label: 'ok', by: 'mallory' },
      }),
    );
    const live = outsideCode(body);
    expect(body).toContain('<img'); // shown, as text inside code…
    expect(live).not.toContain('<img'); // …never as HTML
    expect(live).not.toContain('<script>');
    expect(live).not.toMatch(/@(maintainers|everyone|here)\b/);
    expect(live).not.toContain('](https://evil');
    expect((body.match(/<details>/g) ?? []).length).toBe((body.match(/<\/details>/g) ?? []).length - 1);
    // The error output sits in a fence longer than any backtick run inside it.
    expect(body).toContain('````text\ncrashed:\n```\n</details><script>@everyone</script>\n````');
  });

  test('why a review failed: its sentences as text (which wraps), the stderr lines under one as a code block', () => {
    const reviewError = 'Could not capture the contracts of node server.js. The server exited with code 1. Its last stderr lines:\n    Loading config\n      Error: no DSN\n\nWhat to do: Run the server by hand.';
    const body = renderComment(review({ reviewError, report: null, gate: { pass: false, verdict: 'unknown', blocking: [], failures: ['x'] } }));
    expect(body).toContain('What went wrong:\n\n> Could not capture the contracts of node server.js. The server exited with code 1. Its last stderr lines:\n\n```text\nLoading config\n  Error: no DSN\n```\n\n> What to do: Run the server by hand.\n\n');
  });

  test('an approval names who added the label, without pinging them', () => {
    const body = renderComment(review({ approval: { label: 'contract-change-approved', by: 'carol' }, gate: { pass: true, verdict: 'approved', blocking: review().gate.blocking, failures: [] } }));
    expect(body).toContain('**Approved by label** `contract-change-approved` (added by `@carol`)');
    expect(body).not.toContain('Allow-list entries for these changes');
  });

  test('a huge report stays under GitHub\'s limit, with every <details> closed and a note on where the rest is', () => {
    const many = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`tool_${i}`, [delta('BREAKING', i.toString(16).padStart(16, '0'), { message: `${'x'.repeat(200)} ${i}` })]]));
    const blocking = Object.keys(many).map((name, i) => ({ entry: `tools.${name}`, severity: 'BREAKING' as const, kind: 'k', field: 'f', fingerprint: i.toString(16).padStart(16, '0') }));
    const body = renderComment(review({ report: reportOf(many), gate: { pass: false, verdict: 'blocked', blocking, failures: [] } }));
    expect(body.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(body.length).toBeGreaterThan(COMMENT_LIMIT - 5_000);
    expect((body.match(/<details/g) ?? []).length).toBe((body.match(/<\/details>/g) ?? []).length);
    expect(body).toContain('**Partial report**');
    expect(body).toContain('Cut here: the job summary of this run, or its delta artifact, has every change.');
    expect(body).toContain('Reproduce locally');
    expect(body).toContain('<sub>mcp-contract-guard · job `contracts`');
  });

  test('after a revert: short, with the same marker', () => {
    const body = renderQuietComment(review());
    expect(body).toContain(commentMarker('inventory', 'contracts'));
    expect(body).toContain('### MCP contract changes in `inventory`: none');
  });

  test('the summary table keeps its shape whatever the server is called', () => {
    const summary = renderSummary([review({ name: 'a|b' })], ['careful | this']);
    expect(summary).toContain('| `a\\|b` | 🔴 BREAKING | 1 | 0 | 1 | 0 | fresh | ❌ fails |');
    expect(summary).toContain('> careful | this');
  });

  test('changes approved by label, with the check still failing (a version too small, a stale lockfile): the Gate column says it fails', () => {
    const approved = { verdict: 'approved' as const, blocking: review().gate.blocking };
    expect(renderSummary([review({ gate: { ...approved, pass: true, failures: [] } })], [])).toContain('| ✅ approved by label |');
    expect(renderSummary([review({ gate: { ...approved, pass: false, failures: ['version too small'] } })], [])).toContain('| ❌ fails (changes approved by label) |');
  });

  test('a lockfile checked against a contracts file reads fresh, as one checked against a server does; one not checked reads –', () => {
    expect(renderSummary([review({ headSource: 'file' })], [])).toContain('| 0 | fresh | ❌ fails |');
    expect(renderSummary([review({ headSource: 'lockfile' })], [])).toContain('| 0 | – | ❌ fails |');
  });
});

describe('truncateMarkdown', () => {
  test('closes an open fence and open <details> at the cut', () => {
    const text = `<details>\n<summary>s</summary>\n\n\`\`\`json\n${'{"a": 1}\n'.repeat(500)}\`\`\`\n</details>\n`;
    const cut = truncateMarkdown(text, 1_000, 'NOTE');
    expect(cut.length).toBeLessThanOrEqual(1_000);
    expect(cut).toMatch(/\n```\n<\/details>\n\nNOTE\n$/);
  });
});
