import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as z3 from 'zod/v3';
import { formatValidationError, type ValidationIssue } from '../../src/runtime/index.js';

/** The text of the `<field>` named `name` (the first one). */
function field(xml: string, name: string): string {
  const match = new RegExp(`<field name="${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}">([^<]*)</field>`).exec(xml);
  if (match === null) throw new Error(`no <field name="${name}"> in\n${xml}`);
  return match[1] as string;
}

const userSchema = {
  type: 'object',
  properties: {
    username: { type: 'string', minLength: 3, maxLength: 20, pattern: '^[a-zA-Z0-9_]+$' },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 18, maximum: 120 },
    role: { type: 'string', enum: ['admin', 'moderator', 'user', 'guest'] },
    code: { type: 'string', pattern: '^[A-Z]{3}$' },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5, uniqueItems: true },
    step: { type: 'number', multipleOf: 5 },
  },
  required: ['username', 'email', 'age', 'role'],
  additionalProperties: false,
} as const;

const zodUser = z
  .object({
    username: z.string().min(3).max(20).regex(/^[a-zA-Z0-9_]+$/),
    email: z.email(),
    age: z.number().int().min(18).max(120),
    role: z.enum(['admin', 'moderator', 'user', 'guest']),
    code: z.string().regex(/^[A-Z]{3}$/).optional(),
    tags: z.array(z.string()).min(1).max(5).optional(),
    step: z.number().multipleOf(5).optional(),
  })
  .strict();

const badArgs = { username: 'ab', email: 'not-an-email', age: 15, role: 'admn', code: 'abc', tags: [], step: 7, emial: 'x' };

describe('formatValidationError with zod 4 issues', () => {
  const issues = zodUser.safeParse(badArgs).error!.issues;
  const xml = formatValidationError(issues, { toolName: 'create_user', action: 'create', args: badArgs, schema: userSchema });

  it('wraps one <field> per issue in <validation_error tool action> with a <recovery> line', () => {
    expect(xml.startsWith('<validation_error tool="create_user" action="create">\n')).toBe(true);
    expect(xml.match(/<field /g)).toHaveLength(issues.length);
    expect(xml).toContain('<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>');
  });

  it('length: states both bounds from the schema', () => {
    expect(field(xml, 'username')).toContain('You sent: "ab".');
    expect(field(xml, 'username')).toContain('Fix: Provide a string with at least 3 and at most 20 characters.');
  });

  it('range: states both bounds from the schema', () => {
    expect(field(xml, 'age')).toContain('You sent: 15. Expected: integer between 18 and 120 (inclusive). Fix: Provide an integer between 18 and 120 (inclusive).');
  });

  it('enum: lists the options and guesses the near miss', () => {
    expect(field(xml, 'role')).toContain('Fix: Use one of: "admin", "moderator", "user", "guest". Did you mean "admin"?');
  });

  it('format: names the format with a sample', () => {
    expect(field(xml, 'email')).toContain('Fix: Provide a string in email format, e.g. "user@example.com".');
  });

  it('pattern: quotes the pattern and a matching sample', () => {
    expect(field(xml, 'code')).toContain('Fix: Provide a string matching the regular expression ^[A-Z]{3}$, e.g. "ABC".');
  });

  it('array size and multipleOf', () => {
    expect(field(xml, 'tags')).toContain('Fix: Provide an array with at least 1 and at most 5 items.');
    expect(field(xml, 'step')).toContain('Fix: Provide a multiple of 5, e.g. 5.');
  });

  it('unknown keys: did-you-mean among the declared names not already sent', () => {
    const args = { username: 'abc', emial: 'a@b.co', age: 20, role: 'user' };
    const out = formatValidationError(zodUser.safeParse(args).error!.issues, { args, schema: userSchema });
    expect(field(out, '(root)')).toContain('You sent: "emial".');
    expect(field(out, '(root)')).toContain('Fix: Rename "emial" to "email".');
    expect(field(out, '(root)')).toContain('Expected: only the declared fields "age", "code", "email", "role", "step", "tags", "username".');
  });

  it('unknown keys without a near name: remove them', () => {
    const args = { username: 'abc', email: 'a@b.co', age: 20, role: 'user', admin_override: true };
    const out = formatValidationError(zodUser.safeParse(args).error!.issues, { args, schema: userSchema });
    expect(field(out, '(root)')).toContain('Fix: Remove "admin_override".');
  });

  it('missing required field: says so and shows a valid value to add', () => {
    const args = { username: 'abc', email: 'a@b.co', age: 20 };
    const out = formatValidationError(zodUser.safeParse(args).error!.issues, { args, schema: userSchema });
    expect(field(out, 'role')).toBe('Required field "role" is missing. You sent: nothing. Expected: one of "admin", "moderator", "user", "guest". Fix: Add "role" to the arguments, e.g. "role": "admin".');
    expect(out).toContain('<recovery>Add the missing field "role". Fix the fields above');
  });

  it('wrong type: a numeric string is told to become a number', () => {
    const args = { username: 'abc', email: 'a@b.co', age: '42', role: 'user' };
    const out = formatValidationError(zodUser.safeParse(args).error!.issues, { args, schema: userSchema });
    expect(field(out, 'age')).toContain('Fix: Send 42 as a JSON number, not as the string "42".');
  });

  it('works from the issues alone when no schema is given', () => {
    const out = formatValidationError(issues, { args: badArgs });
    expect(field(out, 'age')).toContain('Expected: a number of at least 18. Fix: Provide a number of at least 18.');
    expect(field(out, 'role')).toContain('Use one of: "admin", "moderator", "user", "guest". Did you mean "admin"?');
    expect(field(out, 'code')).toContain('Fix: Provide a string matching the regular expression ^[A-Z]{3}$, e.g. "ABC".');
    expect(out).not.toContain('<example>');
  });
});

describe('formatValidationError with zod 3 issues', () => {
  const schema = z3.z
    .object({ name: z3.z.string().min(3), email: z3.z.string().email(), role: z3.z.enum(['admin', 'user']), lit: z3.z.literal('x'), n: z3.z.number().max(10) })
    .strict();

  it('reads the zod 3 codes (invalid_enum_value, invalid_literal, invalid_string, too_big, Required)', () => {
    const args = { name: 'ab', email: 'bad', role: 'usr', lit: 'y', n: 11, nmae: 1 };
    const out = formatValidationError(schema.safeParse(args).error!.issues as ValidationIssue[], { args });
    expect(field(out, 'name')).toContain('Fix: Provide a string with at least 3 characters.');
    expect(field(out, 'email')).toContain('Fix: Provide a string in email format, e.g. "user@example.com".');
    expect(field(out, 'role')).toContain('Use one of: "admin", "user". Did you mean "user"?');
    expect(field(out, 'lit')).toContain('Fix: Use exactly "x".');
    expect(field(out, 'n')).toContain('Fix: Provide a number of at most 10.');
    expect(field(out, '(root)')).toContain('Fix: Remove "nmae".');
    const missing = formatValidationError(schema.safeParse({}).error!.issues as ValidationIssue[], { args: {} });
    expect(field(missing, 'name')).toMatch(/^Required field "name" is missing\. You sent: nothing\. Expected: string\./);
  });
});

describe('formatValidationError with ajv errors', () => {
  const ajv = new Ajv({ allErrors: true });
  const validate = ajv.compile({ ...userSchema, properties: { ...userSchema.properties, email: { type: 'string' } } });

  it('reads required, additionalProperties, enum, minimum, minLength, pattern, type, multipleOf', () => {
    const args = { username: 'a!', age: 15.5, role: 'admn', step: 7, emial: 'x', tags: 'one' };
    validate(args);
    const out = formatValidationError(validate.errors ?? [], { toolName: 't', args, schema: userSchema });
    expect(field(out, 'email')).toContain('Required field "email" is missing.');
    expect(field(out, 'email')).toContain('Fix: Add "email" to the arguments, e.g. "email": "user@example.com".');
    expect(field(out, '(root)')).toContain('Fix: Rename "emial" to "email".');
    expect(field(out, 'role')).toContain('Did you mean "admin"?');
    expect(out).toContain('Fix: Provide a string with at least 3 and at most 20 characters.');
    expect(field(out, 'age')).toContain('Fix: Send a whole number such as 16.');
    expect(out).toContain('Fix: Provide an integer between 18 and 120 (inclusive).');
    expect(field(out, 'step')).toContain('Fix: Provide a multiple of 5, e.g. 5.');
    expect(field(out, 'tags')).toContain('Fix: Wrap the value in an array: ["one"].');
  });

  it('maps nested instance paths, including array indexes', () => {
    const nested = new Ajv().compile({ type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } } } } } });
    const args = { items: [{ qty: 1 }, { qty: 0 }] };
    nested(args);
    const out = formatValidationError(nested.errors ?? [], { args });
    expect(field(out, 'items[1].qty')).toContain('You sent: 0.');
    expect(field(out, 'items[1].qty')).toContain('Fix: Provide a number of at least 1.');
  });
});

describe('sent values, escaping, example', () => {
  it('truncates long sent values', () => {
    const args = { username: 'x'.repeat(500), email: 'a@b.co', age: 20, role: 'user' };
    const out = formatValidationError(zodUser.safeParse(args).error!.issues, { args, schema: userSchema });
    expect(field(out, 'username')).toMatch(/You sent: "x{99}… \(truncated, 502 characters\)\./);
  });

  it('escapes hostile tool names, actions, field names and values', () => {
    const evil = '</field></validation_error><x>&';
    const out = formatValidationError([{ code: 'custom', path: [evil], message: evil }], { toolName: evil, action: evil, args: { [evil]: evil } });
    expect(out.match(/<\/validation_error>/g)).toHaveLength(1);
    expect(out.match(/<\/field>/g)).toHaveLength(1);
    expect(out).toContain('tool="&lt;/field&gt;&lt;/validation_error&gt;&lt;x&gt;&amp;"');
    expect(out).toContain('You sent: "&lt;/field>&lt;/validation_error>&lt;x>&amp;"');
  });

  it('adds a minimal valid <example> from the schema when asked', () => {
    const out = formatValidationError(zodUser.safeParse({}).error!.issues, { args: {}, schema: userSchema, example: true });
    const example = JSON.parse(/<example>(.*)<\/example>/.exec(out)?.[1] ?? 'null') as Record<string, unknown>;
    expect(example).toEqual({ username: 'example', email: 'user@example.com', age: 18, role: 'admin' });
    expect(zodUser.safeParse(example).success).toBe(true);
  });

  it('picks the union branch of the failing action for the example and the hints', () => {
    const tool = z.discriminatedUnion('action', [
      z.object({ action: z.literal('create'), email: z.email(), name: z.string().min(2) }),
      z.object({ action: z.literal('list'), limit: z.number().int().min(1).optional() }),
    ]);
    const schema = z.toJSONSchema(tool);
    const args = { action: 'create', name: 'x' };
    const out = formatValidationError(tool.safeParse(args).error!.issues, { toolName: 'users', action: 'create', args, schema, example: true });
    expect(field(out, 'email')).toContain('Fix: Add "email" to the arguments, e.g. "email": "user@example.com".');
    expect(field(out, 'name')).toContain('Fix: Provide a string with at least 2 characters.');
    const example = JSON.parse(/<example>(.*)<\/example>/.exec(out)?.[1] ?? 'null');
    expect(example).toEqual({ action: 'create', email: 'user@example.com', name: 'example' });
    expect(tool.safeParse(example).success).toBe(true);
  });

  it('tells an unknown discriminator value which actions exist', () => {
    const tool = z.discriminatedUnion('action', [z.object({ action: z.literal('create') }), z.object({ action: z.literal('list') })]);
    const args = { action: 'lst' };
    const out = formatValidationError(tool.safeParse(args).error!.issues, { args });
    expect(field(out, 'action')).toContain('Fix: Set "action" to one of: "create", "list". Did you mean "list"?');
  });

  it('leaves the example out when no valid value can be built', () => {
    const schema = { type: 'object', properties: { id: { type: 'string', pattern: '^[0-9a-f]{24}$' } }, required: ['id'] };
    const out = formatValidationError([{ keyword: 'required', instancePath: '', params: { missingProperty: 'id' } }], { args: {}, schema, example: true });
    expect(out).not.toContain('<example>');
    expect(field(out, 'id')).toContain('Fix: Add "id" as string matching the pattern ^[0-9a-f]{24}$.');
  });

  it('follows local $refs and survives recursive schemas', () => {
    const schema = {
      type: 'object',
      $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' }, size: { type: 'integer', maximum: 3 } }, required: ['size'] } },
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
    };
    const args = { root: { child: { size: 9 } } };
    const out = formatValidationError([{ keyword: 'maximum', instancePath: '/root/child/size', params: { comparison: '<=', limit: 3 }, message: 'must be <= 3' }], { args, schema, example: true });
    expect(field(out, 'root.child.size')).toContain('Fix: Provide an integer of at most 3.');
    expect(out).toContain('<example>{"root":{"size":1}}</example>');
  });

  it('is deterministic and handles an empty issue list', () => {
    const issues = zodUser.safeParse(badArgs).error!.issues;
    const once = formatValidationError(issues, { args: badArgs, schema: userSchema, example: true });
    expect(formatValidationError(issues, { args: badArgs, schema: userSchema, example: true })).toBe(once);
    expect(formatValidationError([], {})).toBe('<validation_error>\n<field name="(root)">The arguments were rejected. You sent: nothing. Fix: Correct the value as the tool description asks.</field>\n<recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>');
  });
});

describe('unions of primitives', () => {
  it('names every accepted type, from the schema or from the nested zod issues', () => {
    const s = z.object({ u: z.union([z.string(), z.number()]) });
    const args = { u: true };
    const issues = s.safeParse(args).error!.issues;
    expect(field(formatValidationError(issues, { args, schema: z.toJSONSchema(s) }), 'u')).toContain('Expected: string or number. Fix: Send a string or number.');
    expect(field(formatValidationError(issues, { args }), 'u')).toContain('Expected: string | number. Fix: Send a string or number.');
  });
});

describe('example edge cases', () => {
  it('leaves out an empty example (every field optional)', () => {
    const schema = { type: 'object', properties: { status: { type: 'string', enum: ['open', 'shipped'] } } };
    const args = { status: 'cancelled' };
    const out = formatValidationError([{ keyword: 'enum', instancePath: '/status', params: { allowedValues: ['open', 'shipped'] } }], { args, schema, example: true });
    expect(out).not.toContain('<example>');
    expect(field(out, 'status')).toContain('Fix: Use one of: "open", "shipped".');
  });
});
