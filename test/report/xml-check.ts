import { expect } from 'vitest';

const BARE_AMPERSAND = /&(?!(?:amp|lt|gt|quot|apos);)/;

/**
 * Every `<` in the XML opens or closes one of our elements, elements nest properly, and every
 * `&` starts an entity. (A bare `>` in text is legal XML and stays readable: `>= 1`.)
 */
export function assertWellFormedXml(xml: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([a-z_]+)((?:\s+[a-z_]+="[^"<>]*")*)\s*>/y;
  let index = 0;
  while (index < xml.length) {
    const next = xml.indexOf('<', index);
    if (next < 0) break;
    expect(xml.slice(index, next)).not.toMatch(BARE_AMPERSAND);
    tag.lastIndex = next;
    const m = tag.exec(xml);
    expect(m, `malformed tag at ${next}: ${xml.slice(next, next + 60)}`).not.toBeNull();
    const [, closing, name] = m as RegExpExecArray;
    if (closing === '/') expect(stack.pop()).toBe(name);
    else stack.push(name as string);
    index = tag.lastIndex;
  }
  expect(xml.slice(index)).not.toMatch(BARE_AMPERSAND);
  expect(stack).toEqual([]);
}
