/**
 * One server's review, decided in one place for the CLI, the Action and the check of a review
 * file: the gate, the accepted changes with their entries' words, the version check, the
 * approval and what its record covers. And fail-on, read by one parser for the flag, the input
 * and the review file.
 */
import { describe, expect, test } from 'vitest';
import { parseFailOn } from '../../src/policy/checks.js';
import { decideReview, type ReviewFacts } from '../../src/policy/review.js';
import { delta, reportOf } from '../action/reports.js';

const report = reportOf({ create_order: [delta('BREAKING', 'aaaa1111aaaa1111'), delta('BREAKING', 'bbbb2222bbbb2222'), delta('SAFE', 'cccc3333cccc3333')] });
const facts: ReviewFacts = { server: 'shop', report, failOn: 'BREAKING', acceptedBy: () => undefined, lockfileCheck: 'fail' };

describe('decideReview', () => {
  test('the gate as plain data, each blocking change by its entry; the accepted ones with the entry that accepts them', () => {
    const entries = new Map([['aaaa1111aaaa1111', { reason: 'the old name was never used', expires: '2030-01-01' }]]);
    const { review, gate } = decideReview({ ...facts, acceptedBy: (fingerprint) => entries.get(fingerprint) });
    expect(review.gate).toEqual({
      pass: false,
      verdict: 'blocked',
      blocking: [{ entry: 'tools.create_order', severity: 'BREAKING', kind: 'required-property-added', field: 'inputSchema', fingerprint: 'bbbb2222bbbb2222' }],
      failures: [expect.stringContaining('The contracts of shop have 1 change at or above fail-on BREAKING')],
    });
    expect(review.accepted).toEqual([{ entry: 'tools.create_order', severity: 'BREAKING', fingerprint: 'aaaa1111aaaa1111', reason: 'the old name was never used', expires: '2030-01-01' }]);
    // The located decision, for those who list changes by collection and name.
    expect(gate.blocking.map((d) => [d.collection, d.name, d.delta.fingerprint])).toEqual([['tools', 'create_order', 'bbbb2222bbbb2222']]);
  });

  test('an approval lets the gate pass only over what its record covers, and the review says what that is', () => {
    const approval = { label: 'ok', by: 'carol' };
    const covered = decideReview({ ...facts, approval, approvalRecord: { label: 'ok', by: 'carol', at: '', fingerprints: ['aaaa1111aaaa1111', 'bbbb2222bbbb2222'] } }).review;
    expect(covered).toMatchObject({ gate: { pass: true, verdict: 'approved' }, approval, approvalCoverage: { approvedFingerprints: ['aaaa1111aaaa1111', 'bbbb2222bbbb2222'], newSinceApproval: [] } });
    const partly = decideReview({ ...facts, approval, approvalRecord: { label: 'ok', by: 'carol', at: '', fingerprints: ['aaaa1111aaaa1111'] }, approvalIgnored: 'not shown' }).review;
    expect(partly).toMatchObject({ gate: { pass: false, verdict: 'blocked' }, approvalCoverage: { newSinceApproval: ['bbbb2222bbbb2222'] }, approvalIgnored: 'not shown' });
    expect(partly.approval).toBeUndefined();
    // Why a label does not approve is said only where the gate is blocked.
    expect(decideReview({ ...facts, failOn: 'never', approvalIgnored: 'who added it may not write' }).review.approvalIgnored).toBeUndefined();
  });

  test('the version check is made only when asked for; a version too small fails the gate even when the changes are approved', () => {
    expect(decideReview(facts).review.release).toBeUndefined();
    const release = { previous: '1.4.0', current: '1.5.0', mode: 'fail' as const };
    const { review } = decideReview({ ...facts, approval: { label: 'ok', by: 'carol' }, release });
    expect(review.release).toMatchObject({ bump: 'major', check: 'too-small', requiredVersion: '2.0.0', mode: 'fail' });
    expect(review.gate).toMatchObject({ pass: false, verdict: 'approved', failures: [expect.stringContaining('The version of shop does not say what its contract changes are.')] });
    expect(decideReview({ ...facts, failOn: 'never', release: { ...release, mode: 'warn' } }).review).toMatchObject({ gate: { pass: true }, release: { check: 'too-small', mode: 'warn' } });
  });

  test('a review that could not be made fails, whatever else is known; a stale lockfile fails only under lockfile-check fail', () => {
    expect(decideReview({ ...facts, report: null, reviewError: 'the head did not compile', staleMessage: 'stale' }).review.gate).toEqual({
      pass: false,
      verdict: 'unknown',
      blocking: [],
      failures: ['Could not review the contracts of shop: the head did not compile'],
    });
    const clean = { ...facts, report: reportOf({}), staleMessage: 'mcp-contracts.lock.json no longer matches shop.' };
    expect(decideReview(clean).review.gate).toMatchObject({ pass: false, verdict: 'clean', failures: ['mcp-contracts.lock.json no longer matches shop.'] });
    expect(decideReview({ ...clean, lockfileCheck: 'warn' }).review.gate).toMatchObject({ pass: true, failures: [] });
  });
});

describe('parseFailOn', () => {
  test('a severity in any case, or never; anything else named by the flag or input that gave it', () => {
    expect(['breaking', 'Risky', 'SAFE', 'cosmetic', 'NEVER', ' never '].map((value) => parseFailOn(value, '--fail-on'))).toEqual(['BREAKING', 'RISKY', 'SAFE', 'COSMETIC', 'never', 'never']);
    expect(() => parseFailOn('sometimes', 'The input "fail-on"')).toThrow('The input "fail-on" must be one of BREAKING, RISKY, SAFE, COSMETIC, never; got "sometimes".');
  });
});
