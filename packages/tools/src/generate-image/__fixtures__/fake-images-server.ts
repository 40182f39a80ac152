// A loopback stand-in for OpenAI's images API (`POST /v1/images/generations`), answering in its documented
// format: `{created, data: [{b64_json | url, revised_prompt}]}` and `{error: {message, type, param, code}}`.
// The prompt picks the behaviour, so one server serves every test.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A 1x1 PNG. */
export const onePixelPng = new Uint8Array(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  ),
);

/** What the server received (header names only, never values). */
export interface FakeImagesRequest {
  readonly method: string;
  readonly path: string;
  readonly headerNames: readonly string[];
  readonly body: unknown;
  /** The request's closing before the answer was sent (an abort). */
  closedEarly: boolean;
}

export interface FakeImagesServer {
  /** `http://127.0.0.1:<port>/v1`. */
  readonly baseUrl: string;
  readonly requests: readonly FakeImagesRequest[];
  /** Answers the requests held by a `hold` prompt. */
  releaseHeld(): void;
  close(): Promise<void>;
}

const sizes = new Set(['256x256', '512x512', '1024x1024', '1536x1024', '1024x1536', '1792x1024', '1024x1792', 'auto']);

/**
 * Starts the fake. Prompts containing these words change the answer: `as-url` (a URL to download), `refuse-me`
 * (400 content_policy_violation), `server-error` (500), `not-an-image` (base64 of text), `hold` (waits for
 * `releaseHeld()`), `point-elsewhere` (a URL on [::1], which the guarded fetch must refuse). Otherwise: b64_json.
 */
export async function startFakeImagesServer(options: { readonly apiKey: string }): Promise<FakeImagesServer> {
  const requests: FakeImagesRequest[] = [];
  const held: (() => void)[] = [];
  let origin = '';
  const server = createServer((request, response) => {
    void handle(request, response).catch(() => response.destroy());
  });
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const record: FakeImagesRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      headerNames: Object.keys(request.headers),
      body: text === '' ? undefined : safeJson(text),
      closedEarly: false,
    };
    requests.push(record);
    response.on('close', () => {
      if (!response.writableFinished) record.closedEarly = true;
    });
    if (request.method === 'GET' && request.url === '/files/generated.png') {
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': onePixelPng.length });
      response.end(onePixelPng);
      return;
    }
    if (request.method !== 'POST' || request.url !== '/v1/images/generations') {
      return sendError(response, 404, { message: 'Unknown path', type: 'invalid_request_error', code: 'not_found' });
    }
    if (request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendError(response, 401, {
        message: 'Incorrect API key provided: sk-wr***ng. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      });
    }
    const body = record.body as Record<string, unknown> | undefined;
    if (
      typeof body?.model !== 'string' ||
      typeof body.prompt !== 'string' ||
      typeof body.size !== 'string' ||
      !sizes.has(body.size) ||
      body.n !== 1
    ) {
      return sendError(response, 400, { message: 'Invalid request body', type: 'invalid_request_error', code: 'invalid_value' });
    }
    const prompt = body.prompt;
    const revised = body.model.startsWith('gpt-image') ? {} : { revised_prompt: `A detailed picture: ${prompt}` };
    if (prompt.includes('refuse-me')) {
      return sendError(response, 400, {
        message:
          'Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.',
        type: 'invalid_request_error',
        code: 'content_policy_violation',
      });
    }
    if (prompt.includes('server-error')) {
      return sendError(response, 500, { message: 'The server had an error while processing your request.', type: 'server_error', code: null });
    }
    if (prompt.includes('hold')) await new Promise<void>((resolve) => held.push(resolve));
    if (response.destroyed) return;
    const image = prompt.includes('as-url')
      ? { url: `${origin}/files/generated.png` }
      : prompt.includes('point-elsewhere')
        ? { url: `http://[::1]:${(server.address() as AddressInfo).port}/files/generated.png` }
        : {
            b64_json: Buffer.from(prompt.includes('not-an-image') ? new TextEncoder().encode('plain text') : onePixelPng).toString(
              'base64',
            ),
          };
    sendJson(response, 200, { created: 1_713_833_628, data: [{ ...image, ...revised }] });
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}/v1`,
    requests,
    releaseHeld: () => {
      for (const release of held.splice(0)) release();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const release of held.splice(0)) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendError(response: ServerResponse, status: number, error: { message: string; type: string; code: string | null }) {
  sendJson(response, status, { error: { ...error, param: null } });
}

function sendJson(response: ServerResponse, status: number, value: unknown) {
  const body = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
