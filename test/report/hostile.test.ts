/**
 * Server strings are attacker-controlled. Names, descriptions and enum values full of
 * Markdown, HTML, mentions, XML metacharacters, control characters and 100 KB of text must
 * never break, or inject into, any output format.
 */
import { describe, expect, it } from 'vitest';
import { expectLinearTime } from '../helpers/timing.js';
import { renderArtifact, renderJson, renderMarkdown, renderSarif, renderText, renderXml, validateArtifact } from '../../src/report/index.js';
import { expectRendersCleanly } from './gfm.js';
import { PAYLOADS, sampleReport } from './sample.js';
import { assertWellFormedXml } from './xml-check.js';

/** Inline code spans render literally, so what they contain cannot ping or inject. */
function outsideCode(markdown: string): string {
  return markdown.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, '');
}

for (const [name, payload] of Object.entries(PAYLOADS)) {
  describe(`hostile ${name}`, async () => {
    const report = await sampleReport(payload);

    it('JSON and the artifact stay valid and round-trip', () => {
      expect(JSON.parse(renderJson(report))).toEqual(report);
      expect(validateArtifact(JSON.parse(renderArtifact(report)))).toEqual(report);
    });

    it('XML stays well formed: no element can be closed or forged', () => {
      const xml = renderXml(report);
      assertWellFormedXml(xml);
      expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
    });

    it('Markdown renders no HTML, link, mention, table or heading from the server', () => {
      const md = renderMarkdown(report);
      expect(md.length).toBeLessThanOrEqual(65_000);
      expectRendersCleanly(md, []);
      const prose = outsideCode(md);
      expect(prose.match(/<details( open)?>/g)?.length).toBe(prose.match(/<\/details>/g)?.length);
      expect(prose.match(/<summary>/g)?.length).toBe(prose.match(/<\/summary>/g)?.length);
      expect(prose).not.toMatch(/<(script|img|\/?summary>fake|!--)/i);
      expect(prose).not.toMatch(/@(octocat|github)/);
      expect(prose).not.toMatch(/https:\/\/|www\.evil/);
      expect(prose).not.toMatch(/\]\(/);
      expect(md).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u202E\u200B\uFEFF]/);
      // Outside code blocks, only our own structure starts a line: headings, the counts, table
      // rows, list items and their second line, HTML blocks, notes.
      for (const line of md.replace(/^ *(`{3,})[^\n]*\n[\s\S]*?\n *\1$/gm, '').split('\n')) {
        expect(line, line.slice(0, 80)).toMatch(/^(|#{3,4} .*|🔴 .*|\| .* \||- .*|  <sub>.*<\/sub>|<details>|<\/details>|<summary>.*<\/summary>|> .*|\*\*How to fix\*\*|The .* not listed here: .*)$/);
      }
    });

    it('terminal text cannot carry escape sequences from the server', () => {
      expect(renderText(report, { color: false })).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u202E]/);
      const coloured = renderText(report, { color: true }).replace(/\u001b\[[0-9;]+m/g, '');
      expect(coloured).not.toMatch(/[\u0000-\u0008\u000B-\u001F]/);
    });

    it('SARIF stays valid JSON with bounded messages', () => {
      const sarif = JSON.parse(renderSarif(report, { lockfilePath: 'mcp-contracts.lock.json' }));
      for (const result of sarif.runs[0].results) expect(result.message.text.length).toBeLessThan(3_000);
    });
  });
}

it('a 100 KB description is diffed and rendered in time linear in its length', async () => {
  await expectLinearTime('diffing and rendering a description', async (scale) => {
    const report = await sampleReport(` ${'A'.repeat(10_000 * scale)}`);
    renderMarkdown(report);
    renderText(report, { color: false });
    renderXml(report);
  });
});
