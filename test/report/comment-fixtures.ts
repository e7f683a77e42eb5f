/**
 * Reviews as the Action builds them, from real releases (test/fixtures/real-world: the raw
 * `initialize` and list results of published servers, server name, version and capabilities
 * included) and from hostile reports: what the comment and summary tests render.
 */
import { readFileSync } from 'node:fs';
import type { Contracts } from '../../src/contract/model.js';
import { normalizeCapture } from '../../src/contract/normalize.js';
import { diffContracts } from '../../src/diff/index.js';
import { decideReview } from '../../src/policy/review.js';
import type { DiffReport, FailOn, ServerReview } from '../../src/protocol/index.js';

export const RUN_URL = 'https://github.com/acme/tools/actions/runs/4242';

/** A published server's contracts at one version, as its dump in test/fixtures/real-world records them. */
export function releaseOf(name: string): Contracts {
  const dump = JSON.parse(readFileSync(new URL(`../fixtures/real-world/${name}.json`, import.meta.url), 'utf8'));
  return normalizeCapture({ protocolVersion: '', era: 'legacy', prompts: [], resources: [], resourceTemplates: [], ...dump }).contracts;
}

/** The report of a release, from one dump to the other (`server@a`, `server@b`). */
export function releaseReport(from: string, to: string): Promise<DiffReport> {
  return diffContracts(releaseOf(from), releaseOf(to));
}

/** The review of `report` as a pull_request run makes it: gated at `failOn`, nothing accepted, no label. */
export function reviewOf(name: string, report: DiffReport, overrides: Partial<ServerReview> & { failOn?: FailOn } = {}): ServerReview {
  const failOn = overrides.failOn ?? 'BREAKING';
  const accepted = new Map((overrides.accepted ?? []).map((a) => [a.fingerprint, a]));
  const { gate } = decideReview({
    server: name,
    report,
    failOn,
    acceptedBy: (fingerprint) => accepted.get(fingerprint),
    ...(overrides.approval ? { approval: overrides.approval } : {}),
    approveLabel: 'contract-change-approved',
    lockfileCheck: 'fail',
  }).review;
  return {
    id: 'mcp-contracts.lock.json',
    name,
    job: 'contracts',
    lockfile: 'mcp-contracts.lock.json',
    baseline: 'the base of PR #7 (main @ 4f2c1a9)',
    baselineRef: '4f2c1a9'.padEnd(40, '0'),
    headSha: '9b7e3d05c1a2'.padEnd(40, 'f'),
    headSource: 'server',
    report,
    lockfileCheck: 'fail',
    failOn,
    gate,
    approveLabel: 'contract-change-approved',
    accepted: [],
    allowNotes: [],
    reproduce: ['npx mcp-contract-guard check --command "node dist/index.js"'],
    notes: [],
    runUrl: RUN_URL,
    ...overrides,
  };
}
