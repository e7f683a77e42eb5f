/** What an approval covers, and how the gate treats changes outside it and a version that is too small. */
import { describe, expect, test } from 'vitest';
import { approvalCoverage, covers, needingApproval, type ApprovalRecord } from '../../src/policy/coverage.js';
import { decideGate, type GateInput } from '../../src/policy/gate.js';
import { delta, reportOf } from '../action/reports.js';

const approval = { label: 'contract-change-approved', by: 'Carol' };
const AT = '2030-01-02T10:00:00Z';

describe('approval coverage', () => {
  test('a run the approver caused records the changes present (deduplicated, sorted); logins compare without case', () => {
    const coverage = approvalCoverage({ approval, labeledAt: AT, triggeredBy: 'carol', present: ['bbbb', 'AAAA', 'bbbb'] });
    expect(coverage).toEqual({ record: { label: 'contract-change-approved', by: 'Carol', at: AT, fingerprints: ['aaaa', 'bbbb'] }, recordedNow: true });
  });

  test('every other run is held to the record of that label event, the approver\'s own later runs included', () => {
    const record: ApprovalRecord = { label: 'contract-change-approved', by: 'carol', at: AT, fingerprints: ['aaaa'] };
    expect(approvalCoverage({ approval, labeledAt: AT, triggeredBy: 'mallory', record, present: ['aaaa', 'cccc'] })).toEqual({ record, recordedNow: false });
    expect(approvalCoverage({ approval, labeledAt: AT, triggeredBy: 'carol', record, present: ['aaaa', 'cccc'] })).toEqual({ record, recordedNow: false });
    // A review that could not be made keeps the record it found.
    expect(approvalCoverage({ approval, labeledAt: AT, triggeredBy: 'carol', record, present: null })).toEqual({ record, recordedNow: false });
  });

  test('a record of another label event stands for nothing: the label added again, by someone else, or another label', () => {
    const old: ApprovalRecord = { label: 'contract-change-approved', by: 'carol', at: '2029-12-01T00:00:00Z', fingerprints: ['aaaa'] };
    for (const record of [old, { ...old, at: AT, by: 'dave' }, { ...old, at: AT, label: 'other' }]) {
      const ignored = approvalCoverage({ approval, labeledAt: AT, triggeredBy: 'mallory', record, present: ['aaaa'] });
      expect(ignored).toEqual({ ignored: expect.stringContaining('no review recorded them then; this run was started by @mallory') });
      // The approver's own run replaces it.
      expect(approvalCoverage({ approval, labeledAt: AT, triggeredBy: 'carol', record, present: ['cccc'] })).toMatchObject({ record: { at: AT, fingerprints: ['cccc'] }, recordedNow: true });
    }
  });

  test('without a record, a run someone else caused does not approve, and says how to approve', () => {
    const coverage = approvalCoverage({ approval, labeledAt: AT, triggeredBy: 'mallory', present: ['aaaa'] });
    expect('ignored' in coverage && coverage.ignored).toBe(
      'The label "contract-change-approved" approves the changes present when @Carol added it, but no review recorded them then; this run was started by @mallory. ' +
        'Remove the label and add it again to approve the changes as they are now (the workflow must run on the "labeled" event, with a token that may comment: the record is kept in the comment).',
    );
    expect(approvalCoverage({ approval, labeledAt: AT, present: null })).toHaveProperty('ignored');
  });

  test('the changes an approval is about: those at or above fail-on', () => {
    const report = reportOf({ a: [delta('BREAKING', 'b1'), delta('RISKY', 'r1'), delta('SAFE', 's1')] });
    expect(needingApproval(report, 'BREAKING')).toEqual(['b1']);
    expect(needingApproval(report, 'RISKY').sort()).toEqual(['b1', 'r1']);
    expect(needingApproval(report, 'never')).toEqual([]);
    expect(covers({ label: 'l', by: 'b', at: '', fingerprints: ['b1'] })(' B1 ')).toBe(true);
  });
});

describe('the gate with a scoped approval and a version check', () => {
  const base: GateInput = {
    server: 'inventory',
    report: reportOf({ create_order: [delta('BREAKING', 'b1')], list_orders: [delta('BREAKING', 'b2'), delta('BREAKING', 'b3')] }),
    failOn: 'BREAKING',
    accepted: () => false,
    approveLabel: 'contract-change-approved',
    lockfileCheck: 'fail',
  };
  const recorded = covers({ label: 'contract-change-approved', by: 'carol', at: AT, fingerprints: ['b1'] });

  test('changes the approval does not cover block again, named with their fingerprints in the failure', () => {
    const decision = decideGate({ ...base, approval: { label: 'contract-change-approved', by: 'carol' }, covers: recorded });
    expect(decision).toMatchObject({ pass: false, verdict: 'blocked' });
    expect(decision.newSinceApproval.map((d) => d.delta.fingerprint)).toEqual(['b2', 'b3']);
    expect(decision.failures).toEqual([
      'The contracts of inventory have 2 changes at or above fail-on BREAKING that the label "contract-change-approved" added by @carol does not cover: they were pushed after it was added ' +
        '(BREAKING required-property-added in tools.list_orders [b2]; BREAKING required-property-added in tools.list_orders [b3]). It still covers the 1 it approved. ' +
        'If the new ones are intended too, remove the label and add it again, or accept each one by fingerprint in the "allow" list of mcp-contract-guard.config.json.',
    ]);
    // Allow-listing the new ones, or a record that covers them all, passes.
    expect(decideGate({ ...base, approval: { label: 'contract-change-approved', by: 'carol' }, covers: recorded, accepted: (f) => f !== 'b1' })).toMatchObject({ pass: true, verdict: 'approved', newSinceApproval: [] });
    expect(decideGate({ ...base, approval: { label: 'contract-change-approved', by: 'carol' }, covers: () => true })).toMatchObject({ pass: true, verdict: 'approved' });
  });

  test('the allow-list advice names the config file the run reads', () => {
    expect(decideGate({ ...base, allowFile: 'packages/api/mcp-contract-guard.config.json' }).failures[0]).toContain('"allow" list of packages/api/mcp-contract-guard.config.json.');
  });

  test('a version that is too small fails under "fail" even when the label approves every change', () => {
    const decision = decideGate({ ...base, approval: { label: 'contract-change-approved', by: 'carol' }, covers: () => true, versionFailure: 'The version of inventory is too small.' });
    expect(decision).toMatchObject({ pass: false, verdict: 'approved', failures: ['The version of inventory is too small.'] });
  });
});
