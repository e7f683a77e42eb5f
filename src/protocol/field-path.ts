/**
 * Field paths: how a delta says where it is. A path is a list of segments (schema keywords
 * and member names, raw). The one codec of the report's `field`: `fieldOf` encodes segments as
 * the dotted string (`inputSchema.properties.items.items.properties.sku`), `fieldSegments`
 * decodes it; `whereOf` makes the short label people read (`items[].sku`).
 */

export type Segments = readonly string[];

const PLAIN_SEGMENT = /^[A-Za-z0-9_$-]+$/;

/**
 * Dotted field path. A member name that is not a plain identifier (a dot, a space, a
 * bracket…) is written as a JSON string in brackets, so a property called `a.b` cannot be
 * confused with `a` → `b`.
 */
export function fieldOf(segments: Segments): string {
  let out = '';
  for (const segment of segments) {
    if (PLAIN_SEGMENT.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** The segments of a dotted field path; undefined when it is not one the diff writes. */
export function fieldSegments(field: string): string[] | undefined {
  const segments: string[] = [];
  let i = 0;
  while (i < field.length) {
    if (field[i] === '[') {
      // A JSON string: find its closing quote, skipping escaped characters.
      let end = i + 2;
      while (end < field.length && field[end] !== '"') end += field[end] === '\\' ? 2 : 1;
      if (field[i + 1] !== '"' || field[end + 1] !== ']') return undefined;
      try {
        segments.push(JSON.parse(field.slice(i + 1, end + 1)) as string);
      } catch {
        return undefined;
      }
      i = end + 2;
    } else {
      let end = i;
      while (end < field.length && field[end] !== '.' && field[end] !== '[') end++;
      if (end === i) return undefined;
      segments.push(field.slice(i, end));
      i = end;
    }
    if (field[i] === '.') i++;
  }
  return segments;
}

/** Segments that wrap a member name or index and how each reads in a label. */
const LABELS: Record<string, (next: string) => string> = {
  properties: (name) => `.${name}`,
  patternProperties: (pattern) => `./${pattern}/`,
  dependentSchemas: (name) => `(with ${name})`,
  prefixItems: (index) => `[${index}]`,
  anyOf: (branch) => `<${branch}>`,
  oneOf: (branch) => `<${branch}>`,
  allOf: (branch) => `<all ${branch}>`,
  $defs: (name) => `#${name}`,
};
const SINGLE_LABELS: Record<string, string> = {
  items: '[]',
  additionalProperties: '.*',
  unevaluatedProperties: '.*',
  propertyNames: '(key)',
  contains: '[contains]',
  not: '(not)',
};

/**
 * A short human label of a schema location. The root reads `arguments` (input) or `result`
 * (output); inside a discriminated action, `arguments of "create"`.
 */
export function whereOf(segments: Segments): string {
  let root = '';
  let rest: string[] = [];
  const parts = [...segments];
  if (parts[0] === 'actions' && parts.length >= 3) {
    const schema = parts[2] === 'outputSchema' ? 'result' : 'arguments';
    root = `${schema} of action ${JSON.stringify(parts[1])}`;
    rest = parts.slice(3);
  } else if (parts[0] === 'inputSchema' || parts[0] === 'outputSchema') {
    root = parts[0] === 'inputSchema' ? 'arguments' : 'result';
    rest = parts.slice(1);
  } else {
    return fieldOf(parts);
  }
  let label = '';
  for (let i = 0; i < rest.length; i++) {
    const segment = rest[i] as string;
    const wrap = LABELS[segment];
    if (wrap !== undefined && i + 1 < rest.length) {
      label += wrap(rest[i + 1] as string);
      i++;
    } else {
      label += SINGLE_LABELS[segment] ?? `(${segment})`;
    }
  }
  if (label === '') return root;
  const path = label.startsWith('.') ? label.slice(1) : label;
  return parts[0] === 'actions' ? `${path} (action ${JSON.stringify(parts[1])})` : path;
}
