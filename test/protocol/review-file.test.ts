/**
 * The review file as hostile input: a pull request's job writes it, running the PR's code, and
 * a `workflow_run` job holding a write token reads it. Every file this version writes reads
 * back as written; anything else (too big, too deep, a field it does not write, a prototype
 * key, a SHA that is not one, a string or list past its cap, a report that lies) is refused
 * with one error naming each place and why, never a crash.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_READ_LIMITS,
  REVIEW_FILE_CAPS,
  ReviewFileError,
  readReviewFile,
  readReviewFileText,
  renderReviewFile,
  type ReviewFile,
  type ServerReview,
} from '../../src/protocol/index.js';
import { MAX_READ_BYTES } from '../../src/github/io/paths.js';
import { isRuleKind } from '../../src/rules/index.js';
import { delta, reportOf, serverReview } from '../action/reports.js';

/** A review with every field the Action may write. */
function fullReview(): ServerReview {
  return serverReview({
    baseline: 'the base of PR #7 (main @ abc1234)',
    baselineRef: 'a'.repeat(40),
    report: reportOf({ create_order: [delta('BREAKING', 'aaaa1111aaaa1111')], list_orders: [delta('SAFE', 'bbbb2222bbbb2222')] }),
    stale: { message: 'mcp-contracts.lock.json does not match the server at this commit (1 entry differs).', command: 'npx mcp-contract-guard lock' },
    gate: { pass: true, verdict: 'approved', blocking: [{ entry: 'tools.create_order', severity: 'BREAKING', kind: 'required-property-added', field: 'inputSchema', fingerprint: 'aaaa1111aaaa1111' }], failures: [] },
    approval: { label: 'contract-change-approved', by: 'carol' },
    approveLabel: 'contract-change-approved',
    accepted: [{ entry: 'tools.list_orders', severity: 'SAFE', fingerprint: 'bbbb2222bbbb2222', reason: 'planned', expires: '2026-12-31' }],
    allowNotes: ['An allow-list entry expired.'],
    reproduce: ['npx mcp-contract-guard check'],
    notes: ['The base had no lockfile.'],
    alert: 'The server wrote to the runner\'s command files.',
    approvalCoverage: { label: 'contract-change-approved', by: 'carol', approvedFingerprints: ['aaaa1111aaaa1111'], newSinceApproval: [] },
    release: { bump: 'major', previousVersion: '1.2.0', currentVersion: '2.0.0', previousTag: 'v1.2.0', currentTag: 'v2.0.0', check: 'ok', mode: 'fail', message: 'ok' },
    allowList: { file: '.mcp-contract-guard.json', fileExists: true, expires: '2026-12-31' },
    runUrl: 'https://github.com/acme/tools/actions/runs/4242',
  });
}

function fileOf(reviews: ServerReview[] = [fullReview()]): ReviewFile {
  return { version: 1, repository: 'acme/tools', pullRequest: 7, headSha: 'b'.repeat(40), reviews };
}

/** The file as JSON data, to forge. */
function forgeable(file = fileOf()): { reviews: Array<Record<string, unknown>> } & Record<string, unknown> {
  return JSON.parse(renderReviewFile(file)) as { reviews: Array<Record<string, unknown>> } & Record<string, unknown>;
}

/** The problems `text` is refused for (fails when it is read). */
function problemsOf(text: string): readonly string[] {
  try {
    readReviewFileText(text, isRuleKind);
  } catch (error) {
    if (error instanceof ReviewFileError) return error.problems;
    throw error;
  }
  throw new Error('the file was read');
}

describe('a review file this version writes', () => {
  it('reads back as written, every optional field included', () => {
    const file = fileOf([fullReview(), serverReview({ id: 'billing', report: null, reviewError: 'The server exited with code 1.', gate: { pass: false, verdict: 'unknown', blocking: [], failures: ['x'] }, headSource: 'removed' })]);
    expect(readReviewFileText(renderReviewFile(file), isRuleKind)).toEqual(file);
    expect(readReviewFileText(renderReviewFile({ ...file, pullRequest: null }), isRuleKind).pullRequest).toBeNull();
  });

  it('is written in canonical order: the same review gives the same bytes, whatever order it was built in', () => {
    const file = fileOf();
    const reversed = JSON.parse(JSON.stringify(file, (_key, value: unknown) => (value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).reverse()) : value))) as ReviewFile;
    expect(Object.keys(reversed)[0]).toBe('reviews');
    expect(renderReviewFile(reversed)).toBe(renderReviewFile(file));
    expect(renderReviewFile(file)).toMatch(/^\{\n {2}"headSha": "b{40}",\n {2}"pullRequest": 7,\n {2}"repository": "acme\/tools",\n {2}"reviews": \[/);
    expect(renderReviewFile(file).endsWith('}\n')).toBe(true);
  });

  it('keeps the names of a report (tools called __proto__ or constructor) as data, in null-prototype records', () => {
    const report = reportOf({ proto_name: [delta('SAFE', 'cccc3333cccc3333')], constructor: [delta('SAFE', 'dddd4444dddd4444')] });
    // Written as a PR's job could write it: a plain object literal cannot hold the key `__proto__`.
    const text = renderReviewFile(fileOf([serverReview({ report })])).replace('"proto_name"', '"__proto__"');
    const read = readReviewFileText(text, isRuleKind);
    const tools = read.reviews[0]!.report!.tools;
    expect(Object.getPrototypeOf(tools)).toBeNull();
    expect(Object.keys(tools).sort()).toEqual(['__proto__', 'constructor']);
    expect(tools.__proto__!.deltas[0]!.fingerprint).toBe('cccc3333cccc3333');
  });

  it('is read with a byte order mark (a Windows editor saved it)', () => {
    expect(readReviewFileText(`\ufeff${renderReviewFile(fileOf())}`, isRuleKind)).toEqual(fileOf());
  });

  it('is read up to the size the Action reads, and leaves a report all the nesting the report reader allows', () => {
    expect(REVIEW_FILE_CAPS.length).toBe(MAX_READ_BYTES);
    expect(REVIEW_FILE_CAPS.depth).toBe(DEFAULT_READ_LIMITS.maxDepth + 3);
    let deep: unknown = 'leaf';
    // The report's own depth: report, tools, entry, deltas, delta, then `current`.
    for (let depth = 6; depth <= DEFAULT_READ_LIMITS.maxDepth; depth++) deep = [deep];
    const report = reportOf({ create_order: [delta('SAFE', 'eeee5555eeee5555', { current: deep })] });
    const text = renderReviewFile(fileOf([serverReview({ report })]));
    expect(readReviewFileText(text, isRuleKind).reviews[0]!.report!.tools.create_order!.deltas[0]!.current).toEqual(deep);
  });
});

describe('a hostile review file is refused, each problem named with its place and why', () => {
  it('too big: refused before it is parsed', () => {
    const text = renderReviewFile(fileOf());
    expect(problemsOf(text + ' '.repeat(REVIEW_FILE_CAPS.length - text.length + 1))).toEqual(['it is 67,108,865 characters long; the limit is 67,108,864']);
  });

  it('too deep: refused before it is parsed, even where the form allows any JSON (a delta\'s values)', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200; i++) deep = [deep];
    const report = reportOf({ create_order: [delta('SAFE', 'eeee5555eeee5555', { current: deep })] });
    expect(problemsOf(renderReviewFile(fileOf([serverReview({ report })])))).toEqual([`it nests 208 levels deep; the limit is ${DEFAULT_READ_LIMITS.maxDepth + 3}`]);
    expect(problemsOf('['.repeat(100_000))).toEqual(['it nests over 10,000 levels deep; the limit is 67']);
  });

  it('not JSON, not an object, another version', () => {
    expect(problemsOf('{')[0]).toMatch(/^it is not valid JSON \(/);
    expect(problemsOf('[]')).toEqual(['it must be a JSON object (a review file), got an array']);
    expect(problemsOf(JSON.stringify({ ...forgeable(), version: 2 }))).toEqual(['it has version 2; this mcp-contract-guard reads version 1 (write and read it with the same version)']);
  });

  it('a field this version does not write, at any level', () => {
    const file = forgeable();
    file.extra = 1;
    Object.assign(file.reviews[0]!, { script: 'x' });
    const gate = file.reviews[0]!.gate as { blocking: Array<Record<string, unknown>> };
    gate.blocking[0]!.approvedBy = 'the-maintainer';
    (file.reviews[0]!.stale as Record<string, unknown>).fixed = true;
    expect(problemsOf(JSON.stringify(file))).toEqual([
      'extra is not a field of a review file',
      'reviews[0].script is not a field of a review',
      'reviews[0].stale.fixed is not a field of { message, command }',
      'reviews[0].gate.blocking[0].approvedBy is not a field of a blocking change',
    ]);
  });

  it('a prototype key, or a name made to break the message, is refused and shown escaped', () => {
    const text = renderReviewFile(fileOf()).replace('"gate": {', '"gate": {\n"__proto__": {"pass": true},\n"a\\nb::error::x": 1,');
    expect(problemsOf(text)).toEqual(['reviews[0].gate.__proto__ is not a field of a gate', 'reviews[0].gate["a\\nb::error::x"] is not a field of a gate']);
    expect(problemsOf(`{"__proto__": {"version": 1}, ${renderReviewFile(fileOf()).slice(1)}`)).toEqual(['__proto__ is not a field of a review file']);
  });

  it('a commit SHA that is not 40 lower-case hex digits', () => {
    const file = forgeable();
    file.headSha = 'abc1234';
    file.reviews[0]!.headSha = 'B'.repeat(40);
    expect(problemsOf(JSON.stringify(file))).toEqual(['headSha must be a commit SHA (40 hex digits), got "abc1234"', `reviews[0].headSha must be a commit SHA (40 hex digits), got "${'B'.repeat(40)}"`]);
  });

  it('a string past its cap, a list past its cap, too many reviews', () => {
    const file = forgeable();
    file.reviews[0]!.name = 'x'.repeat(501);
    file.reviews[0]!.reproduce = Array.from({ length: 21 }, () => 'npx mcp-contract-guard check');
    expect(problemsOf(JSON.stringify(file))).toEqual(['reviews[0].name must be a string of at most 500 characters, got 501 characters', 'reviews[0].reproduce holds 21 items; at most 20']);
    const many = forgeable(fileOf(Array.from({ length: REVIEW_FILE_CAPS.reviews + 1 }, () => serverReview())));
    expect(problemsOf(JSON.stringify(many))).toEqual(['reviews holds 101 items; at most 100']);
  });

  it('wrong types, values outside a vocabulary, a missing field, a date that is not one', () => {
    const file = forgeable();
    file.pullRequest = '7';
    const review = file.reviews[0]!;
    review.failOn = 'NEVER';
    review.headSource = 'pr';
    (review.gate as Record<string, unknown>).pass = 'true';
    delete review.accepted;
    (review.allowList as Record<string, unknown>).expires = '31/12/2026';
    (review.release as Record<string, unknown>).mode = 'strict';
    expect(problemsOf(JSON.stringify(file))).toEqual([
      'pullRequest must be a pull request\'s number or null, got "7"',
      'reviews[0].headSource must be one of "server", "lockfile", "file", "removed", got "pr"',
      'reviews[0].failOn must be one of "BREAKING", "RISKY", "SAFE", "COSMETIC", "never", got "NEVER"',
      'reviews[0].gate.pass must be one of true, false, got "true"',
      'reviews[0] has no "accepted"',
      'reviews[0].release.mode must be one of "fail", "warn", "off", got "strict"',
      'reviews[0].allowList.expires must be a day like 2026-12-31, got "31/12/2026"',
    ]);
    for (const pullRequest of [0, -1, 1.5, 2 ** 53]) expect(problemsOf(JSON.stringify({ ...forgeable(), pullRequest }))).toHaveLength(1);
  });

  it('a report that lies, or names a rule this version does not have, by the strict report reader', () => {
    const lying = fileOf();
    lying.reviews[0]!.report!.summary.counts.BREAKING = 0;
    expect(problemsOf(renderReviewFile(lying))).toEqual(['reviews[0].report: summary.counts.BREAKING must be 1 (the number of BREAKING deltas), got 0']);
    const unknown = fileOf([serverReview({ report: reportOf({ create_order: [delta('SAFE', 'ffff6666ffff6666', { kind: 'made-up' as never })] }) })]);
    expect(problemsOf(renderReviewFile(unknown))).toEqual(['reviews[0].report: tools["create_order"].deltas[0].kind "made-up" is not a rule kind of this version']);
    expect(() => readReviewFileText(renderReviewFile(unknown))).not.toThrow();
    const missing = forgeable();
    delete missing.reviews[0]!.report;
    expect(problemsOf(JSON.stringify(missing))).toEqual(['reviews[0] has no "report"']);
  });

  it('at most 20 problems, however many the file holds', () => {
    const file = forgeable(fileOf(Array.from({ length: 100 }, () => serverReview())));
    for (const review of file.reviews) review.headSha = 'x';
    const problems = problemsOf(JSON.stringify(file));
    expect(problems).toHaveLength(20);
    expect(problems[19]).toBe('reviews[19].headSha must be a commit SHA (40 hex digits), got "x"');
  });

  it('parsed data is checked the same way', () => {
    expect(() => readReviewFile({ ...forgeable(), extra: 1 })).toThrow(new ReviewFileError(['extra is not a field of a review file']));
  });
});
