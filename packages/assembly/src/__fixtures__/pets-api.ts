// A small API on 127.0.0.1, port 0, and the OpenAPI 3.0 document that describes it. It insists on the bearer
// token, so a test proves the stored (encrypted) credential reached the request.
import { startLoopbackHttpServer } from '@toolbus/core/testing';

/** A running pets API. */
export interface PetsApi {
  readonly baseUrl: string;
  readonly document: Record<string, unknown>;
  readonly token: string;
  /** Authorization headers received ('' when absent), in order. */
  readonly authorizations: readonly string[];
  close(): Promise<void>;
}

const pets: Record<string, { id: string; name: string }> = { '1': { id: '1', name: 'Rex' } };

/** Starts the API. `getPet` needs `Authorization: Bearer <token>`; one operation has no operationId. */
export async function startPetsApi(token = 'pets-token-secret-42'): Promise<PetsApi> {
  const http = await startLoopbackHttpServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const match = /^\/pets\/([^/?]+)$/.exec(request.url);
    const pet = match?.[1] === undefined ? undefined : pets[decodeURIComponent(match[1])];
    if (request.method === 'GET' && pet) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(pet));
      return;
    }
    if (request.method === 'GET' && request.url === '/health') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  });
  const baseUrl = http.origin;
  return {
    baseUrl,
    token,
    get authorizations() {
      return http.received.map((request) => request.headers.authorization ?? '');
    },
    document: {
      openapi: '3.0.3',
      info: { title: 'Pets', version: '1.0.0', description: 'A pet store.' },
      servers: [{ url: baseUrl }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerAuth: [] }],
      paths: {
        '/pets/{petId}': {
          get: {
            operationId: 'get pet.by-id',
            summary: 'Get a pet by id',
            parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { '200': { description: 'The pet' } },
          },
        },
        '/health': {
          get: { summary: 'Health check', responses: { '200': { description: 'ok' } } },
        },
      },
    },
    close: http.close,
  };
}
