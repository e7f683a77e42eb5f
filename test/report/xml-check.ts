import { SaxesParser } from 'saxes';
import { expect } from 'vitest';

/**
 * The text parses as one XML 1.0 document with a strict, conformant parser (saxes): elements
 * nest, every `&` starts a known entity, no `]]>` in text, no character XML forbids (C0
 * controls, lone surrogates, U+FFFE/U+FFFF), attribute values quoted and free of `<`.
 */
export function assertStrictXml(xml: string): void {
  const parser = new SaxesParser({ xmlns: false });
  const errors: string[] = [];
  parser.on('error', (error) => errors.push(error.message));
  try {
    parser.write(xml).close();
  } catch (error) {
    errors.push(error instanceof Error ? error.message : String(error));
  }
  expect(errors, `not well-formed XML:\n${xml}`).toEqual([]);
}

/** The older name, kept for the renderer tests: the same strict check. */
export const assertWellFormedXml = assertStrictXml;
