// Issue 2 budgets: normalize + digest + lockfile write of a 1,000-tool server (< 300 ms), and
// `check` of an unchanged 1,000-tool lockfile (< 100 ms of work after capture).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareContracts, hasChanges } from '../lib/contract/compare.js';
import { parseLockfile, renderLockfile } from '../lib/contract/lockfile.js';
import { normalizeCapture } from '../lib/contract/normalize.js';
import { syntheticTools } from './synthetic.mjs';
import { measure, printTable } from './measure.mjs';

const raw = () => ({ server: { name: 'synthetic' }, protocolVersion: '2025-11-25', era: 'legacy', tools: structuredClone(tools), prompts: [], resources: [], resourceTemplates: [] });
const tools = syntheticTools(1000);
const dir = mkdtempSync(join(tmpdir(), 'mcg-bench-'));
const path = join(dir, 'mcp-contracts.lock.json');

async function run() {
  // The capture itself (a fresh copy of what the server sent) is made outside the timing.
  const lock = measure('lock: normalize + digest + write, 1,000 tools', 300, (capture) => {
    const { contracts } = normalizeCapture(capture);
    writeFileSync(path, renderLockfile(contracts));
  }, { setup: raw });
  const check = measure('check: unchanged 1,000-tool lockfile, after capture', 100, (capture) => {
    const { contracts } = normalizeCapture(capture);
    const locked = parseLockfile(readFileSync(path, 'utf8'), path, contracts);
    if (hasChanges(compareContracts(locked, contracts))) throw new Error('expected no change');
  }, { setup: raw });
  const rawSize = JSON.stringify(tools).length;
  const size = readFileSync(path).length;
  rmSync(dir, { recursive: true, force: true });
  return [
    lock,
    check,
    { name: 'synthetic server: tools/list size, 1,000 tools', value: `${(rawSize / 1024 / 1024).toFixed(1)} MB (${Math.round(rawSize / 1000)} bytes per tool)` },
    { name: 'lockfile size, 1,000 tools', value: `${(size / 1024 / 1024).toFixed(1)} MB` },
  ];
}

printTable('Lockfile (issue 2): synthetic server of 1,000 tools', await run());
