import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ChunkedBodyWriter } from './chunked-body-writer.ts';

const pieces: ReadonlyArray<string | Buffer> = [
  Buffer.from('data: {"a":1}\n\n'),
  'data: ünïcode → ok\n\n',
  Buffer.alloc(0),
  Buffer.from('x'.repeat(300)),
  '',
];
const body = pieces.map((piece) => piece.toString()).join('');

describe('ChunkedBodyWriter', () => {
  let server: Server;
  let port = 0;
  /** Per response: how many times its socket's `write` was called while the writer wrote the pieces. */
  const socketWrites: number[] = [];

  before(async () => {
    server = createServer((incoming, response: ServerResponse) => {
      incoming.resume();
      const chunked = incoming.httpVersion === '1.1';
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        ...(chunked ? { trailer: 'x-done' } : {}),
      });
      const socket = response.socket;
      let writes = 0;
      if (socket !== null) {
        const write = socket.write.bind(socket) as (chunk: string | Buffer) => boolean;
        socket.write = ((chunk: string | Buffer) => {
          writes += 1;
          return write(chunk);
        }) as typeof socket.write;
      }
      const writer = new ChunkedBodyWriter(response);
      for (const piece of pieces) writer.write(piece);
      socketWrites.push(writes);
      if (chunked) response.addTrailers({ 'x-done': 'yes' });
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('writes valid chunked framing that node:http reads back, trailers included', async () => {
    const answer = await new Promise<IncomingMessage>((resolve) =>
      request(`http://127.0.0.1:${port}/`, resolve).end(),
    );
    let text = '';
    answer.setEncoding('utf8');
    for await (const part of answer as AsyncIterable<string>) text += part;
    assert.equal(text, body);
    assert.equal(answer.trailers['x-done'], 'yes');
  });

  it('sends one chunk per piece on the wire, with the byte length (not the character count) as its size', async () => {
    const raw = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const wire = raw.toString('latin1');
    const bodyStart = wire.indexOf('\r\n\r\n') + 4;
    const unicode = Buffer.from('data: ünïcode → ok\n\n');
    const expected = Buffer.concat([
      Buffer.from(`f\r\ndata: {"a":1}\n\n\r\n${unicode.length.toString(16)}\r\n`, 'latin1'),
      unicode,
      Buffer.from(`\r\n12c\r\n${'x'.repeat(300)}\r\n0\r\nx-done: yes\r\n\r\n`, 'latin1'),
    ]);
    assert.deepEqual(raw.subarray(bodyStart), expected);
    // Past the first piece (which carries the head through `response.write`), one socket write per piece.
    assert.equal(socketWrites.at(-1), 4 + 1 + 1);
  });

  it('falls back to the response for an HTTP/1.0 client (no chunked encoding)', async () => {
    const raw = await rawExchange(port, 'GET / HTTP/1.0\r\nHost: x\r\n\r\n');
    const wire = raw.toString('utf8');
    assert.equal(wire.slice(wire.indexOf('\r\n\r\n') + 4), body);
  });
});

/** Sends `head` over a raw TCP connection and returns every byte the server sent until it closed. */
async function rawExchange(port: number, head: string): Promise<Buffer> {
  const socket = connect(port, '127.0.0.1');
  socket.end(head);
  const parts: Buffer[] = [];
  for await (const part of socket as AsyncIterable<Buffer>) parts.push(part);
  return Buffer.concat(parts);
}
