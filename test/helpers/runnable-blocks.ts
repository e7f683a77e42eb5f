/**
 * The code blocks of the README and docs/ that a test runs, so that none can rot. A block is
 * runnable when the line before its fence (blank lines aside) is a marker, invisible on GitHub:
 *
 *   <!-- runnable -->                      a shell block, run from the root of a fresh clone
 *   <!-- runnable exit=1 -->               … that must exit with 1 (default 0)
 *   <!-- runnable lines=1 (why) -->        … of which only the first line runs (say why)
 *   <!-- runnable in=server -->            … run in a server's repository instead (see the test)
 *   <!-- runnable client-config root=/srv/inventory/ -->
 *                                          a client's MCP configuration (JSON), launched as the
 *                                          client would, with that folder standing for a scratch one
 *   <!-- output -->                        the block after it is exactly what the runnable block
 *                                          before it prints on stdout
 */

export interface RunnableBlock {
  file: string;
  /** 1-based line of the marker. */
  line: number;
  /** The fence's language: sh, json… */
  lang: string;
  code: string;
  kind: 'shell' | 'client-config';
  attributes: Record<string, string>;
  /** The text of the `<!-- output -->` block that follows, if any. */
  output?: string;
}

const MARKER = /^<!-- (runnable|output)\b(.*?)-->\s*$/;
const FENCE = /^(`{3,})(\S*)\s*$/;

export function runnableBlocks(markdown: string, file: string): RunnableBlock[] {
  const lines = markdown.split('\n');
  const blocks: RunnableBlock[] = [];
  let last: RunnableBlock | undefined;
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i] as string);
    if (marker === null) {
      // A code block without a marker: skip it whole, so text inside it is never taken for one.
      const fence = FENCE.exec(lines[i] as string);
      const close = fence === null ? -1 : lines.findIndex((line, k) => k > i && line.trim() === fence[1]);
      if (close !== -1) i = close;
      continue;
    }
    const where = `${file}:${i + 1}`;
    let j = i + 1;
    while (j < lines.length && (lines[j] as string).trim() === '') j++;
    const fence = FENCE.exec(lines[j] ?? '');
    if (fence === null) throw new Error(`${where}: a "${marker[1]}" marker must stand right before a code block`);
    const close = lines.findIndex((line, k) => k > j && line.trim() === fence[1]);
    if (close === -1) throw new Error(`${where}: the code block after the marker is never closed`);
    const code = lines.slice(j + 1, close).join('\n');
    if (marker[1] === 'output') {
      if (last === undefined || last.output !== undefined) throw new Error(`${where}: an output block must follow a runnable block`);
      last.output = code;
    } else {
      const words = (marker[2] as string).replace(/\(.*?\)/g, ' ').trim().split(/\s+/).filter(Boolean);
      const attributes: Record<string, string> = {};
      let kind: RunnableBlock['kind'] = 'shell';
      for (const word of words) {
        const [key, value] = word.split('=', 2) as [string, string | undefined];
        if (value !== undefined) attributes[key] = value;
        else if (key === 'client-config') kind = 'client-config';
        else throw new Error(`${where}: unknown word "${word}" in the marker`);
      }
      last = { file, line: i + 1, lang: fence[2] ?? '', code, kind, attributes };
      blocks.push(last);
    }
    i = close;
  }
  return blocks;
}
