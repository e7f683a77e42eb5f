/**
 * Markdown as GitHub renders it (CommonMark + GFM tables, autolinks, tag filter, raw HTML
 * passed through as GitHub's sanitizer would see it), and what a reader then sees: the text,
 * the tags, the links, the table rows. micromark follows the same specification as GitHub's
 * cmark-gfm, down to how `\|` behaves inside and outside table cells.
 */
import { expect } from 'vitest';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

export function renderGfm(markdown: string): string {
  return micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Text with tags dropped and entities decoded: what shows on the page. */
export function shownText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (entity, name: string) =>
      name.startsWith('#x') || name.startsWith('#X') ? String.fromCodePoint(parseInt(name.slice(2), 16)) : name.startsWith('#') ? String.fromCodePoint(Number(name.slice(1))) : (ENTITIES[name] ?? entity),
    );
}

/** The tags the comment itself writes; anything else came from a server or a pull request. */
const OWN_TAGS = new Set(['p', 'h2', 'h3', 'h4', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'code', 'pre', 'details', 'summary', 'ul', 'li', 'strong', 'em', 'sub', 'a', 'br', 'blockquote', 'hr']);

/**
 * What a reader sees when GitHub renders `markdown`, checked: no backslash left over from
 * escaping, no tag but the comment's own, no link but `links`, no image, no live mention, and
 * every table row with exactly the columns of its header.
 */
export function expectRendersCleanly(markdown: string, links: readonly string[]): void {
  const html = renderGfm(markdown);
  const tags = new Set([...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => (m[1] as string).toLowerCase()));
  expect([...tags].filter((t) => !OWN_TAGS.has(t)), 'tags that are not the comment\'s own').toEqual([]);
  for (const [, href] of html.matchAll(/<a href="([^"]*)"/g)) expect(links, 'a link the comment did not make').toContain(href);
  expect(html).not.toMatch(/<img/i);
  // Outside code, a mention would ping: `@` must never be followed directly by a login.
  const prose = shownText(html.replace(/<code>[\s\S]*?<\/code>/g, '').replace(/<pre>[\s\S]*?<\/pre>/g, ''));
  expect(prose).not.toMatch(/(^|[^\w`])@[A-Za-z0-9]/);
  // A backslash the escaping added shows before the character it was meant to escape.
  expect(shownText(html)).not.toMatch(/\\[|*_`[\]()#~!$<>]/);
  expectTablesKeepTheirColumns(markdown);
}

/**
 * Each table row, rendered under its header with one extra column, leaves that column empty:
 * a row that a stray `|` split into more cells would fill it.
 */
function expectTablesKeepTheirColumns(markdown: string): void {
  const lines = markdown.split('\n');
  for (let i = 1; i < lines.length; i++) {
    if (!/^\|( :?---:? \|)+$/.test(lines[i] as string)) continue;
    const columns = (lines[i]!.match(/---/g) ?? []).length;
    const probeHeader = `${lines[i - 1]} extra |\n${lines[i]} --- |`;
    for (let j = i + 1; j < lines.length && lines[j]!.startsWith('|'); j++) {
      const html = renderGfm(`${probeHeader}\n${lines[j]}\n`);
      const cells = [...html.split('<tbody>')[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]);
      expect(cells, `row ${j + 1} has ${columns} columns: ${lines[j]!.slice(0, 120)}`).toHaveLength(columns + 1);
      expect(cells[columns], `row ${j + 1} has more than ${columns} columns: ${lines[j]!.slice(0, 120)}`).toBe('');
    }
  }
}
