// Example inventory server, version 1: the contract that gets locked.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { isMain, serve } from './serve.mjs';

export function createServer() {
  const server = new McpServer({ name: 'inventory', version: '1.0.0' });

  server.registerTool(
    'create_order',
    {
      description: 'Create an order for a product.',
      inputSchema: {
        sku: z.string().min(1).describe('Product SKU'),
        quantity: z.number().int().min(1).describe('Units to order'),
        priority: z.enum(['low', 'normal', 'high']).optional(),
      },
      outputSchema: { orderId: z.string(), status: z.string() },
      annotations: { destructiveHint: false },
    },
    async ({ sku, quantity }) => order(`${sku}x${quantity}`),
  );

  server.registerTool(
    'list_orders',
    {
      description: 'List the orders, optionally filtered by status.',
      inputSchema: {
        status: z.enum(['open', 'shipped', 'cancelled']).optional(),
        limit: z.number().int().min(1).max(100).optional(),
      },
      outputSchema: {
        orders: z.array(z.object({ id: z.string(), status: z.string(), total: z.number() })),
      },
      annotations: { readOnlyHint: true },
    },
    async () => ({ content: [{ type: 'text', text: '[]' }], structuredContent: { orders: [] } }),
  );

  server.registerTool(
    'get_stock',
    {
      description: 'How many units of a product are in stock.',
      inputSchema: { sku: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    async ({ sku }) => text(`${sku}: 12`),
  );

  server.registerTool(
    'delete_order',
    { description: 'Delete an order.', inputSchema: { orderId: z.string() } },
    async ({ orderId }) => text(`deleted ${orderId}`),
  );

  server.registerTool(
    'archive_order',
    {
      description: 'Move an order to the archive.',
      inputSchema: { orderId: z.string() },
      annotations: { destructiveHint: false },
    },
    async ({ orderId }) => text(`archived ${orderId}`),
  );

  server.registerPrompt(
    'order_summary',
    { description: 'Summarize an order for a customer.', argsSchema: { orderId: z.string() } },
    ({ orderId }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Summarize order ${orderId}.` } }] }),
  );

  server.registerResource(
    'catalog',
    'inventory://catalog',
    { description: 'The product catalog.', mimeType: 'application/json' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: '[]' }] }),
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
