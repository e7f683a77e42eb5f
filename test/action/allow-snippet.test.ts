/** The allow-list snippet a failing review offers, and the approval record the sticky comment carries. */
import { describe, expect, test } from 'vitest';
import { allowSnippet } from '../../src/github/render/allow-snippet.js';
import { readApprovalRecord, renderApprovalRecord, withApprovalRecord } from '../../src/github/approval/record.js';
import { COMMENT_LIMIT, renderComment } from '../../src/github/render/comment.js';
import type { ServerReview } from '../../src/protocol/index.js';
import { commentMarker } from '../../src/github/io/sticky.js';
import { renderSummary } from '../../src/github/render/summary.js';
import { parseConfig } from '../../src/config.js';
import { evaluateAllowList, offeredExpiry } from '../../src/policy/allow.js';
import { delta, reportOf, serverReview } from './reports.js';

const TODAY = '2030-01-01';

function blockedReview(count: number, allowList: ServerReview['allowList']): ServerReview {
  const fingerprints = Array.from({ length: count }, (_, i) => (0xa000 + i).toString(16).padStart(16, '0'));
  const report = reportOf(Object.fromEntries(fingerprints.map((f, i) => [`tool_${i}`, [delta('BREAKING', f)]])));
  return serverReview({
    report,
    gate: {
      pass: false,
      verdict: 'blocked',
      blocking: fingerprints.map((fingerprint, i) => ({ entry: `tools.tool_${i}`, severity: 'BREAKING' as const, kind: 'required-property-added', field: 'inputSchema.properties.currency', fingerprint })),
      failures: ['x'],
    },
    ...(allowList ? { allowList } : {}),
  });
}

describe('the allow-list snippet', () => {
  test('lists every blocking change, whatever the count, with a date within the horizon', () => {
    const review = blockedReview(45, { file: 'mcp-contract-guard.config.json', fileExists: false, expires: offeredExpiry(TODAY) });
    const snippet = allowSnippet(review)!;
    expect(snippet).toMatchObject({ file: 'mcp-contract-guard.config.json', form: 'file', count: 45 });
    expect(snippet.text.match(/"fingerprint"/g)).toHaveLength(45);
    expect(offeredExpiry(TODAY)).toBe('2030-04-01');
    // A closer horizon wins.
    expect(offeredExpiry(TODAY, 30)).toBe('2030-01-31');
  });

  test('pasted as offered, it is a valid config file (no "servers" needed) that accepts every change on the day it was offered', () => {
    const review = blockedReview(45, { file: 'mcp-contract-guard.config.json', fileExists: false, expires: offeredExpiry(TODAY) });
    const config = parseConfig(allowSnippet(review)!.text, '/ws/mcp-contract-guard.config.json');
    expect(config.targets).toEqual([]);
    const evaluation = evaluateAllowList([{ server: 'inventory', report: review.report }], config.allow, TODAY);
    expect(evaluation.accepted).toHaveLength(45);
    expect(evaluation.refused).toEqual([]);
    // …and the last day of the offer too.
    expect(evaluateAllowList([{ server: 'inventory', report: review.report }], config.allow, '2030-04-01').accepted).toHaveLength(45);
  });

  test('for a config file that exists, the "allow" key to add to it', () => {
    const review = blockedReview(2, { file: 'packages/api/mcp-contract-guard.config.json', fileExists: true, expires: '2030-04-01' });
    const snippet = allowSnippet(review)!;
    expect(snippet.form).toBe('key');
    expect(snippet.text.startsWith('"allow": [\n  {"fingerprint":"000000000000a000"')).toBe(true);
    const pasted = `{ "servers": { "api": { "command": "node server.js" } }, ${snippet.text} }`;
    expect(parseConfig(pasted, '/ws/c.json').allow).toHaveLength(2);
  });

  test('with an approval on the PR, it offers only the changes the approval does not cover', () => {
    const review = blockedReview(3, { file: 'mcp-contract-guard.config.json', fileExists: true, expires: '2030-04-01' });
    const fresh = review.gate.blocking[2]!.fingerprint;
    review.approvalCoverage = { label: 'ok', by: 'carol', approvedFingerprints: review.gate.blocking.slice(0, 2).map((b) => b.fingerprint), newSinceApproval: [fresh] };
    expect(allowSnippet(review)).toMatchObject({ count: 1, text: expect.stringContaining(fresh) });
    expect(allowSnippet({ ...review, gate: { ...review.gate, verdict: 'approved', pass: true } })).toBeUndefined();
  });

  test('the comment shows a short list open, collapses a long one, and points to the job summary when it cannot hold it', () => {
    const allowList = { file: 'mcp-contract-guard.config.json', fileExists: false, expires: '2030-04-01' };
    const short = renderComment(blockedReview(2, allowList));
    expect(short).toContain('Create `mcp-contract-guard.config.json` with:\n\n```json\n{\n  "allow": [');
    expect(short).not.toContain('<summary>Allow-list entries');
    const long = renderComment(blockedReview(45, allowList));
    expect(long).toContain('<summary>Allow-list entries for these changes (45)</summary>');
    expect(long.match(/"fingerprint"/g)).toHaveLength(45);
    const huge = blockedReview(600, allowList);
    const comment = renderComment(huge);
    expect(comment.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(comment).toContain('The 600 allow-list entries for these changes are too many for this comment: copy them from the job summary of this run');
    expect(renderSummary([huge], []).match(/"fingerprint"/g)).toHaveLength(600);
  });
});

describe('the approval record', () => {
  const record = { label: 'ok --> <b>', by: 'carol', at: '2030-01-02T10:00:00Z', fingerprints: ['aaaa1111aaaa1111', 'bbbb2222bbbb2222'] };

  test('round-trips on the line after the marker, and nothing in it can close the HTML comment', () => {
    const line = renderApprovalRecord(record);
    expect(line.indexOf('-->')).toBe(line.length - 3);
    const body = withApprovalRecord(`${commentMarker('inventory', 'contracts')}\n\nThe review.\n`, record);
    expect(body.split('\n')[1]).toBe(line);
    expect(readApprovalRecord(body)).toEqual(record);
    expect(readApprovalRecord(body.replace(/\n/g, '\r\n'))).toEqual(record);
    // Written again: replaced, never stacked; without a record: removed.
    const again = withApprovalRecord(body, { ...record, fingerprints: ['cccc3333cccc3333'] });
    expect(again.match(/mcp-contract-guard:approved/g)).toHaveLength(1);
    expect(readApprovalRecord(again)?.fingerprints).toEqual(['cccc3333cccc3333']);
    expect(withApprovalRecord(body, undefined)).toBe(`${commentMarker('inventory', 'contracts')}\n\nThe review.\n`);
  });

  test('only a well-formed second line counts', () => {
    const marker = commentMarker('inventory', 'contracts');
    const line = renderApprovalRecord(record);
    expect(readApprovalRecord(`${marker}\n\n${line}\n`)).toBeUndefined();
    expect(readApprovalRecord(`${marker}\n${line} trailing\n`)).toBeUndefined();
    expect(readApprovalRecord(`${marker}\n${line.replace('by=carol', 'by=%E0%A4%A')}\n`)).toBeUndefined();
    expect(readApprovalRecord(`${marker}\n${line.replace('aaaa1111aaaa1111', 'AAAA;rm')}\n`)).toBeUndefined();
  });
});
