import * as z from 'zod';
const s = z.object({ common: z.string().optional(), op: z.discriminatedUnion('action', [ z.object({ action: z.literal('create'), amount: z.number() }), z.object({ action: z.literal('list'), limit: z.number().int().max(100).optional() }) ]) });
console.log(JSON.stringify(z.toJSONSchema(s)));
const u = z.discriminatedUnion('action', [ z.object({ action: z.literal('create'), amount: z.number() }), z.object({ action: z.literal('list') }) ]);
console.log(JSON.stringify(z.toJSONSchema(u)));
console.log(JSON.stringify(z.toJSONSchema(z.object({a: z.string().nullable(), b: z.enum(['x']), c: z.string().email()}))));
