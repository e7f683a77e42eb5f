/** The package's two entry points, imported by name as a user would (self-reference to lib/). */
import { describe, expect, it } from 'vitest';

describe('the library entry point', () => {
  it('runs the whole pipeline: compile a dump, lock, diff, render', async () => {
    const guard = await import('mcp-contract-guard');
    const { normalizeCapture, renderLockfile, parseLockfile, diffContracts, renderText } = guard;
    const capture = (tools: object[]) => ({ server: { name: 's' }, protocolVersion: '', era: 'legacy' as const, tools, prompts: [], resources: [], resourceTemplates: [] });
    const before = normalizeCapture(capture([{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }])).contracts;
    const after = normalizeCapture(capture([{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }])).contracts;
    const locked = parseLockfile(renderLockfile(before), 'lock');
    const report = await diffContracts(locked, after);
    expect(report.summary.maxSeverity).toBe('BREAKING');
    expect(renderText(report, { color: false })).toContain('echo');
  });

  it('exposes the runtime separately', async () => {
    const runtime = await import('mcp-contract-guard/runtime');
    expect(typeof runtime.withSelfHealing).toBe('function');
    expect(typeof runtime.loadDeltaMap).toBe('function');
  });
});
