/**
 * The one definition of a discriminated union, shared by the diff (which scopes a delta to the
 * branch it sits in: `action: "create"`) and the runtime (which reads the failing call's action
 * to pick the deltas to show): if they chose differently, a change to one action would never be
 * shown to the model calling it.
 *
 * A union is discriminated by a property when every branch declares it with a constant (`const`
 * or a one-value `enum`) and no two branches share the value. When several properties qualify,
 * the first in code-unit order is the discriminator, so the choice never depends on key order.
 */
import { isJsonObject } from './json.js';

type Schema = Readonly<Record<string, unknown>>;

/** Follows a `$ref` (or returns the schema itself); undefined when it does not resolve. */
export type ResolveSchema = (schema: unknown) => Schema | undefined;

const asIs: ResolveSchema = (schema) => (isJsonObject(schema) ? schema : undefined);

/** The constant `branch` gives to `property`, as a label (`"create"` → `create`), if any. */
export function discriminatorValue(branch: unknown, property: string, resolve: ResolveSchema = asIs): string | undefined {
  const schema = resolve(branch);
  if (schema === undefined || !isJsonObject(schema.properties) || !Object.hasOwn(schema.properties, property)) return undefined;
  const member = resolve(schema.properties[property]);
  if (member === undefined) return undefined;
  const value = 'const' in member ? member.const : Array.isArray(member.enum) && member.enum.length === 1 ? member.enum[0] : undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The property that discriminates `branches`, or null (see the module comment). */
export function discriminatorOf(branches: readonly unknown[], resolve: ResolveSchema = asIs): string | null {
  if (branches.length < 2) return null;
  const first = resolve(branches[0]);
  if (first === undefined || !isJsonObject(first.properties)) return null;
  for (const candidate of Object.keys(first.properties).sort()) {
    const values = new Set<string>();
    for (const branch of branches) {
      const value = discriminatorValue(branch, candidate, resolve);
      if (value === undefined || values.has(value)) break;
      values.add(value);
    }
    if (values.size === branches.length) return candidate;
  }
  return null;
}
