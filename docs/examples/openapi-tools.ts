import { createServer } from 'node:http';
import { createGuardedFetch, createOpenApiTools, runToolCalls } from 'toolbus';

// A small API on this machine, standing in for yours.
const api = createServer((request, response) => {
  const id = /^\/orders\/(\w+)$/.exec(request.url ?? '')?.[1];
  response.writeHead(id === '7' ? 200 : 404, { 'content-type': 'application/json' });
  response.end(JSON.stringify(id === '7' ? { id, status: 'shipped' } : { error: 'no such order' }));
});
await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
const { port } = api.address() as { port: number };

const document = {
  openapi: '3.1.0',
  info: { title: 'Orders', version: '1' },
  servers: [{ url: `http://127.0.0.1:${port}` }],
  paths: {
    '/orders/{id}': {
      get: {
        operationId: 'getOrder',
        summary: 'One order by id',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The order' } },
      },
    },
  },
};
const tools = await createOpenApiTools({
  document, // an object, or JSON / YAML text; parseOpenApiDocument once and pass the result for large APIs
  fetch: createGuardedFetch({ allow: ['127.0.0.1'] }), // public addresses only, plus what you allow
  namePrefix: 'shop',
  // auth: { type: 'bearer', token: process.env.SHOP_TOKEN } — credentials the model never sees
});
console.log(tools.map((tool) => tool.name).join(', '));
const { outcomes } = await runToolCalls({
  calls: [
    { id: 'call_1', name: 'shop_getOrder', arguments: { id: '7' }, placement: { turn: 0, tab: 0 } },
    { id: 'call_2', name: 'shop_getOrder', arguments: { id: '8' }, placement: { turn: 0, tab: 1 } },
  ],
  tools,
});
for (const { call, status, response } of outcomes) console.log(call.id, status, response.llmFacing);
api.close();
