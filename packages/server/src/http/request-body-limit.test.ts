import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Storage } from '@toolbus/storage';
import { openTestStorage } from '../__fixtures__/test-server.ts';
import { LOCAL_USER_EMAIL } from '../auth/local-auth.ts';
import { createServer } from '../create-server.ts';
import { type ListeningServer, listen } from '../listen.ts';

const limit = 4096;
let storage: Storage;
let http: ListeningServer;

before(async () => {
  ({ storage } = await openTestStorage());
  const server = await createServer({
    storage,
    auth: 'local',
    defaultModel: 'openai-compatible:http://127.0.0.1:9/v1#unused',
    limits: { maxBodyBytes: limit },
  });
  http = await listen(server, { port: 0 });
});
after(async () => {
  await http.close();
  await storage.close();
});

/** POSTs a chat's body over a socket: with its length declared, or chunked (length unknown until the end). */
function createChat(
  body: string,
  framing: 'declared' | 'chunked',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body);
    const outgoing = request(`${http.url}/v1/chats`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        ...(framing === 'declared' ? { 'content-length': String(bytes.byteLength) } : {}),
      },
    });
    outgoing.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.once('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    outgoing.once('error', reject);
    if (framing === 'declared') outgoing.end(bytes);
    else {
      // Several writes without a length: node frames them as chunks.
      for (let at = 0; at < bytes.byteLength; at += 1000) outgoing.write(bytes.subarray(at, at + 1000));
      outgoing.end();
    }
  });
}

async function chatCount(): Promise<number> {
  const user = await storage.users.get({ email: LOCAL_USER_EMAIL });
  return user ? (await storage.chats.listForUser(user.id)).length : 0;
}

const titled = (title: string) => JSON.stringify({ title });

describe('the request body limit', () => {
  for (const framing of ['declared', 'chunked'] as const) {
    test(`a body within the limit (${framing} length) is read whole by the route`, async () => {
      const title = 't'.repeat(200);
      const created = await createChat(titled(title), framing);
      assert.equal(created.status, 201, created.body);
      assert.equal((JSON.parse(created.body) as { title: string }).title, title);
    });

    test(`a body over the limit (${framing} length) gets a 413 naming the limit, and nothing is created`, async () => {
      const before = await chatCount();
      const refused = await createChat(titled('x'.repeat(limit + 10)), framing);
      assert.equal(refused.status, 413, refused.body);
      const error = (JSON.parse(refused.body) as { error: { code: string; field: string; message: string } })
        .error;
      assert.equal(error.code, 'body_too_large');
      assert.equal(error.field, 'body');
      assert.match(error.message, new RegExp(`limit of ${limit} bytes`));
      assert.equal(await chatCount(), before);
    });
  }
});

describe('a 413 on a chunked body never leaves a client on a dead connection (issue 28, finding 9)', () => {
  /**
   * A slow client on a raw socket: a chunked POST over the limit, the rest of its body sent only a second after
   * the 413 arrives (a client still uploading), then, on the same socket, a GET /health, unless the 413 said
   * `Connection: close`.
   */
  function overLimitThenAgain(): Promise<{ head: string; rest: string }> {
    return new Promise((resolve, reject) => {
      const { port } = new URL(http.url);
      const socket = connect(Number(port), '127.0.0.1');
      const chunk = 'x'.repeat(1000);
      const chunks = (count: number) => `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(count);
      let received = '';
      let head = '';
      socket.setEncoding('latin1');
      socket.on('error', () => {});
      socket.on('data', (data: string) => {
        received += data;
        const end = received.indexOf('\r\n\r\n');
        if (head !== '' || end < 0) return;
        head = received.slice(0, end).toLowerCase();
        received = received.slice(end + 4);
        // The server promised to keep the connection: the rest of the body, then the next request, must be read.
        if (!/\r\nconnection: close/.test(head)) {
          setTimeout(() => {
            socket.write(`${chunks(20)}0\r\n\r\nGET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
          }, 1000);
        }
      });
      socket.once('close', () => resolve({ head, rest: received }));
      socket.setTimeout(10_000, () => {
        socket.destroy();
        reject(new Error('no answer'));
      });
      socket.write(
        `POST /v1/chats HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${chunks(2 * Math.ceil(limit / 1000))}`,
      );
    });
  }

  test('"Connection: close", or else the connection keeps working for the next request', async () => {
    const { head, rest } = await overLimitThenAgain();
    assert.match(head, /^http\/1\.1 413/);
    if (/\r\nconnection: close/.test(head)) return;
    assert.match(
      rest,
      /HTTP\/1\.1 200/,
      `${head.match(/connection: [^\r]*/)?.[0]}, but the next request was dropped`,
    );
  });
});
