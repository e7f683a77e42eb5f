// Example inventory server, version 2: what a pull request changes. Against v1 it exercises
// every severity (see the README): a required field added, an enum value removed, a tool
// removed, a tool renamed, an optional field added, a description reworded, an annotation
// flipped, an output field removed, a tool added, a resource's mimeType changed.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { isMain, serve } from './serve.mjs';

export function createServer() {
  const server = new McpServer({ name: 'inventory', version: '2.0.0' });

  server.registerTool(
    'create_order',
    {
      description: 'Create an order for a product.',
      inputSchema: {
        sku: z.string().min(1).describe('Product SKU'),
        quantity: z.number().int().min(1).describe('Units to order'),
        priority: z.enum(['low', 'normal', 'high']).optional(),
        // BREAKING: a new required field.
        currency: z.enum(['USD', 'EUR', 'GBP']).describe('ISO 4217 currency of the order'),
        // SAFE: a new optional field.
        note: z.string().max(500).optional(),
      },
      outputSchema: { orderId: z.string(), status: z.string() },
      annotations: { destructiveHint: false },
    },
    async ({ sku, quantity, currency }) => order(`${sku}x${quantity}-${currency}`),
  );

  server.registerTool(
    'list_orders',
    {
      // COSMETIC: reworded.
      description: 'List orders, newest first, optionally filtered by status.',
      inputSchema: {
        // BREAKING: "cancelled" is no longer accepted.
        status: z.enum(['open', 'shipped']).optional(),
        limit: z.number().int().min(1).max(100).optional(),
      },
      // BREAKING for consumers: `total` is gone from each order.
      outputSchema: { orders: z.array(z.object({ id: z.string(), status: z.string() })) },
      annotations: { readOnlyHint: true },
    },
    async () => ({ content: [{ type: 'text', text: '[]' }], structuredContent: { orders: [] } }),
  );

  // BREAKING: `get_stock` renamed; its input schema is unchanged, so this is found as a rename.
  server.registerTool(
    'check_stock',
    {
      description: 'How many units of a product are in stock.',
      inputSchema: { sku: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    async ({ sku }) => text(`${sku}: 12`),
  );

  // BREAKING: `delete_order` removed.

  server.registerTool(
    'archive_order',
    {
      description: 'Move an order to the archive.',
      inputSchema: { orderId: z.string() },
      // RISKY: destructiveHint false → true (the default, now that it is left out).
    },
    async ({ orderId }) => text(`archived ${orderId}`),
  );

  // SAFE: a new tool.
  server.registerTool(
    'restock',
    {
      description: 'Record a delivery of units for a product.',
      inputSchema: { sku: z.string().min(1), quantity: z.number().int().min(1) },
      annotations: { idempotentHint: false },
    },
    async ({ sku, quantity }) => text(`${sku}: +${quantity}`),
  );

  server.registerPrompt(
    'order_summary',
    {
      description: 'Summarize an order for a customer.',
      // SAFE: an optional argument added.
      argsSchema: { orderId: z.string(), tone: z.string().optional() },
    },
    ({ orderId }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Summarize order ${orderId}.` } }] }),
  );

  server.registerResource(
    'catalog',
    'inventory://catalog',
    // RISKY: readers of this resource get another format.
    { description: 'The product catalog.', mimeType: 'text/csv' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/csv', text: 'sku,name\n' }] }),
  );

  return server;
}

function text(value) {
  return { content: [{ type: 'text', text: value }] };
}

function order(orderId) {
  const result = { orderId, status: 'open' };
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}

if (isMain(import.meta.url)) await serve(createServer);
