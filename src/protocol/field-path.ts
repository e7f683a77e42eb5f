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

/**
 * How the keywords of a location read in a label. A member name joins the dotted path; a union
 * variant, an `allOf` member or an array's items add nothing on the way to a member (`items.sku`:
 * the reader knows `items` is a list); at the end of the label, a keyword that is not a member
 * says in words what the place is (`tags (each item)`). Never `[]`, `<0>` or `.*`: labels are
 * for people.
 */
const MEMBER_LABELS: Record<string, (next: string) => { name?: string; words: string }> = {
  properties: (name) => ({ name, words: '' }),
  patternProperties: (pattern) => ({ words: `properties matching /${pattern}/` }),
  dependentSchemas: (name) => ({ words: `with ${name}` }),
  prefixItems: (index) => ({ words: `item ${Number(index) + 1}` }),
  anyOf: () => ({ words: 'a variant' }),
  oneOf: () => ({ words: 'a variant' }),
  allOf: () => ({ words: 'a constraint' }),
  $defs: (name) => ({ name: `#${name}`, words: '' }),
};
const KEYWORD_LABELS: Record<string, string> = {
  items: 'each item',
  additionalProperties: 'any other property',
  unevaluatedProperties: 'any other property',
  propertyNames: 'property names',
  contains: 'the item it must contain',
  not: 'the exclusion',
};

/**
 * A short human label of a schema location. The root reads `arguments` (input) or `result`
 * (output); inside a discriminated action, `… (action "create")`.
 */
export function whereOf(segments: Segments): string {
  const parts = [...segments];
  let rest: string[];
  let root: string;
  if (parts[0] === 'actions' && parts.length >= 3) {
    root = `${parts[2] === 'outputSchema' ? 'result' : 'arguments'} of action ${JSON.stringify(parts[1])}`;
    rest = parts.slice(3);
  } else if (parts[0] === 'inputSchema' || parts[0] === 'outputSchema') {
    root = parts[0] === 'inputSchema' ? 'arguments' : 'result';
    rest = parts.slice(1);
  } else {
    return fieldOf(parts);
  }
  const names: string[] = [];
  let words = '';
  for (let i = 0; i < rest.length; i++) {
    const segment = rest[i] as string;
    const member = MEMBER_LABELS[segment];
    if (member !== undefined && i + 1 < rest.length) {
      const label = member(rest[++i] as string);
      if (label.name !== undefined) names.push(label.name);
      words = label.words;
    } else words = KEYWORD_LABELS[segment] ?? segment;
  }
  const path = names.join('.');
  const label = path === '' ? (words === '' ? root : `${root} (${words})`) : words === '' ? path : `${path} (${words})`;
  return parts[0] === 'actions' && path !== '' ? `${label} (action ${JSON.stringify(parts[1])})` : label;
}
