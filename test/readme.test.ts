import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './helpers/cli.js';
import { ROOT } from './helpers/processes.js';

const readme = readFileSync(`${ROOT}/README.md`, 'utf8');

function between(page: string, start: string, end: string): string {
  const text = readFileSync(`${ROOT}/${page}`, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  expect(from, `${page} needs ${start}`).toBeGreaterThan(-1);
  return text.slice(from + start.length, to);
}

describe('docs/action.md', () => {
  it('shows the comment the Action really renders for the real-world example', () => {
    const rendered = execFileSync(process.execPath, ['scripts/example-comment.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(between('docs/action.md', '<!-- example-comment:start -->', '<!-- example-comment:end -->')).toBe(`\n\`\`\`\`markdown\n${rendered}\`\`\`\`\n`);
  });
});

describe('README', () => {

  it('quick start: the demo leaves the checkout as it was (the committed example lockfile is what lock writes)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcg-demo-'));
    try {
      const result = await cli(['lock', '--command', 'node examples/inventory/v1.mjs', '--lockfile', join(dir, 'lock.json')], { cwd: ROOT });
      expect(result.code, result.stderr).toBe(0);
      expect(readFileSync(join(dir, 'lock.json'), 'utf8')).toBe(readFileSync(`${ROOT}/examples/inventory/mcp-contracts.lock.json`, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('quick start: the two commands the project promises', () => {
    expect(readme).toContain('npm install && npm run demo');
    expect(readme).toContain('npm install && npm test');
    const scripts = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).scripts;
    expect(scripts.demo).toBe('node scripts/demo.mjs');
    expect(scripts.test).toBe('vitest run');
  });
});
