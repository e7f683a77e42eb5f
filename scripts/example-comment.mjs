// Renders the example PR comment of docs/action.md from two committed real-world captures
// (tavily-mcp 0.2.12 → 0.2.16: four tools renamed, two enums narrowed) with the Action's own
// comment renderer, so the docs show exactly what a pull request gets. Run after
// `npm run build`:
//   node scripts/example-comment.mjs > /tmp/comment.md
//   node scripts/example-comment.mjs --write     # puts it in docs/action.md, between its markers
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { normalizeCapture } from '../lib/contract/normalize.js';
import { diffContracts } from '../lib/diff/index.js';
import { renderComment } from '../lib/github/render/comment.js';
import { reproduceCommands } from '../lib/github/render/reproduce.js';
import { decideReview } from '../lib/policy/review.js';

const fixtures = fileURLToPath(new URL('../test/fixtures/real-world/', import.meta.url));
// The captures keep what `initialize` answered (server name, version, capabilities).
const contractsOf = (file) => {
  const capture = JSON.parse(readFileSync(`${fixtures}${file}`, 'utf8'));
  return normalizeCapture({ protocolVersion: '', era: 'legacy', prompts: [], resources: [], resourceTemplates: [], ...capture }).contracts;
};

const report = await diffContracts(contractsOf('tavily@0.2.12.json'), contractsOf('tavily@0.2.16.json'));
const selection = { flags: "--command 'node build/index.js'", lockfileFlag: '', dir: '' };
const decided = decideReview({ server: 'tavily', report, failOn: 'BREAKING', acceptedBy: () => undefined, approveLabel: 'contract-change-approved', lockfileCheck: 'fail' }).review;
const review = {
  id: 'mcp-contracts.lock.json',
  name: 'tavily',
  job: 'contracts',
  lockfile: 'mcp-contracts.lock.json',
  baseline: 'main (4f2c1a9)',
  baselineRef: '4f2c1a9',
  headSha: '9b7e3d05c1a2',
  headSource: 'server',
  report,
  lockfileCheck: 'fail',
  failOn: 'BREAKING',
  ...decided,
  approveLabel: 'contract-change-approved',
  allowNotes: [],
  reproduce: reproduceCommands({ selection, lockfileRepoPath: 'mcp-contracts.lock.json', lockfileLocalPath: 'mcp-contracts.lock.json', baselineRef: '4f2c1a9', compile: true, failOn: 'BREAKING' }),
  notes: [],
  allowList: { file: 'mcp-contract-guard.config.json', fileExists: false, expires: '2026-12-31' },
  runUrl: 'https://github.com/acme/search-tools/actions/runs/4242',
};
const comment = renderComment(review);
if (process.argv.includes('--write')) {
  const page = fileURLToPath(new URL('../docs/action.md', import.meta.url));
  const [start, end] = ['<!-- example-comment:start -->', '<!-- example-comment:end -->'];
  const text = readFileSync(page, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to < from) throw new Error(`docs/action.md has no ${start} … ${end}`);
  writeFileSync(page, `${text.slice(0, from + start.length)}\n\`\`\`\`markdown\n${comment}\`\`\`\`\n${text.slice(to)}`);
} else {
  process.stdout.write(comment);
}
