/**
 * A delta's `field` read back: the dotted path the diff writes (`inputSchema.properties.items
 * .items.properties.sku.maxLength`, a member name that is not a plain identifier written as a
 * JSON string in brackets: `properties["a.b"]`), and the tool argument it is about (`items[].sku`),
 * which is how a validation error names the same place.
 */

/** An argument path: member names, with `[]` for "any item of the array". */
export type ArgumentPath = readonly string[];

/** Where a schema delta sits among the arguments, and the keyword it is about (`enum`, `pattern`…; undefined for the member itself). */
export interface ArgumentLocation {
  readonly path: ArgumentPath;
  readonly keyword: string | undefined;
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

/** Keywords whose next segment is a member name or an index, skipped on the way to the argument. */
const BRANCHES = new Set(['anyOf', 'oneOf', 'allOf']);

/**
 * The argument a delta of a tool's input schema is about: `inputSchema.properties.currency.enum`
 * is `currency` (keyword `enum`), `actions.create.inputSchema.properties.email` is `email`,
 * `inputSchema.additionalProperties` is the root (keyword `additionalProperties`). Undefined for
 * anything else: output schemas, the tool's name, description or annotations, `$defs`.
 */
export function argumentLocationOf(field: string): ArgumentLocation | undefined {
  const segments = fieldSegments(field);
  if (segments === undefined) return undefined;
  const start = segments.indexOf('inputSchema');
  if (start !== 0 && !(start === 2 && segments[0] === 'actions')) return undefined;
  const path: string[] = [];
  for (let i = start + 1; i < segments.length; i++) {
    const segment = segments[i] as string;
    const last = i === segments.length - 1;
    if (segment === 'properties' && !last) path.push(segments[++i] as string);
    else if (segment === 'items' && !last) path.push('[]');
    else if (segment === 'prefixItems' && !last) {
      path.push('[]');
      i++;
    } else if (segment === 'additionalProperties' && !last) path.push('*');
    else if (BRANCHES.has(segment) && !last) i++;
    else if (segment === '$defs' || segment === 'definitions' || segment === 'not') return undefined;
    else return { path, keyword: segment };
  }
  return { path, keyword: undefined };
}

/** `items[].sku`, `address.zip`, `(root)` for the arguments object itself. */
export function argumentLabel(path: ArgumentPath): string {
  if (path.length === 0) return '(root)';
  let label = '';
  for (const segment of path) label += segment === '[]' ? '[]' : label === '' ? segment : `.${segment}`;
  return label;
}
