// Renders the README's example PR comment from two committed real-world captures
// (@modelcontextprotocol/server-filesystem 2026.7.4 → 2026.7.10) with the Action's own comment
// renderer, so the README shows exactly what a pull request gets. Run after `npm run build`:
//   node scripts/readme-example.mjs > /tmp/comment.md
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseContractsFile } from '../lib/compile/dump.js';
import { normalizeCapture } from '../lib/contract/normalize.js';
import { diffContracts } from '../lib/diff/index.js';
import { renderComment } from '../lib/github/comment.js';
import { decideGate } from '../lib/policy/gate.js';
import { reproduceCommands } from '../lib/github/reproduce.js';

const fixtures = fileURLToPath(new URL('../test/fixtures/real-world/', import.meta.url));
const contractsOf = (file) => {
  const parsed = parseContractsFile(readFileSync(`${fixtures}${file}`, 'utf8'), file);
  return parsed.kind === 'lockfile' ? parsed.contracts : normalizeCapture(parsed.capture).contracts;
};

const report = await diffContracts(contractsOf('server-filesystem@2026.7.4.json'), contractsOf('server-filesystem@2026.7.10.json'));
const selection = { flags: "--command 'node dist/index.js /tmp'", lockfileFlag: '', dir: '' };
const gate = decideGate({ server: 'filesystem', report, failOn: 'RISKY', accepted: () => false, approveLabel: 'contract-change-approved', lockfileCheck: 'fail' });
const review = {
  id: 'mcp-contracts.lock.json',
  name: 'filesystem',
  job: 'contracts',
  lockfile: 'mcp-contracts.lock.json',
  baseline: 'main (4f2c1a9)',
  baselineRef: '4f2c1a9',
  headSha: '9b7e3d05c1a2',
  headSource: 'server',
  report,
  lockfileCheck: 'fail',
  failOn: 'RISKY',
  gate: {
    pass: gate.pass,
    verdict: gate.verdict,
    blocking: gate.blocking.map((d) => ({ entry: `${d.collection}.${d.name}`, severity: d.delta.severity, kind: d.delta.kind, field: d.delta.field, fingerprint: d.delta.fingerprint })),
    failures: gate.failures,
  },
  approveLabel: 'contract-change-approved',
  accepted: [],
  allowNotes: [],
  reproduce: reproduceCommands({ selection, lockfileRepoPath: 'mcp-contracts.lock.json', lockfileLocalPath: 'mcp-contracts.lock.json', baselineRef: '4f2c1a9', compile: true, failOn: 'RISKY' }),
  notes: [],
};
process.stdout.write(renderComment(review));
