import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ChunkedBodyWriter } from '@toolbus/core/repair';
import { omitUndefined } from '@toolbus/spec';
import { relayEvents } from './relay-events.ts';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

describe('relayEvents', () => {
  const total = 48 * 1024 * 1024;
  const event = `data: ${JSON.stringify({ text: 'x'.repeat(16 * 1024) })}\n\n`;
  let sent = 0;
  let finished = false;
  let upstream: Server;
  let relay: Server;
  let relayUrl = '';

  before(async () => {
    // An upstream that writes as fast as the connection takes it, and waits for `drain` when it does not.
    upstream = createServer((incoming, outgoing) => {
      incoming.resume();
      outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
      const more = (): void => {
        while (sent < total) {
          sent += event.length;
          if (!outgoing.write(event)) {
            outgoing.once('drain', more);
            return;
          }
        }
        finished = true;
        outgoing.end('data: [DONE]\n\n');
      };
      more();
    });
    const upstreamUrl = await listen(upstream);
    relay = createServer((incoming, response) => {
      incoming.resume();
      request(upstreamUrl, (upstreamResponse) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        relayEvents({ upstreamResponse, response, repair: (data) => `data: ${data}\n\n` }).then(
          () => response.end(),
          () => response.destroy(),
        );
      }).end();
    });
    relayUrl = await listen(relay);
  });
  after(() => {
    upstream.closeAllConnections();
    relay.closeAllConnections();
    upstream.close();
    relay.close();
  });

  it('holds the upstream back while the client does not read, then relays every event', async () => {
    const answer = await new Promise<IncomingMessage>((resolve) => request(relayUrl, resolve).end());
    answer.pause();
    // The upstream must stall (its writes wait for `drain`) long before it has written everything: a relay that
    // read on regardless would buffer the whole answer in memory and let the upstream finish.
    let last = -1;
    let still = 0;
    while (still < 5) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(finished, false, 'the upstream wrote its whole answer to a client that read nothing');
      still = sent === last ? still + 1 : 0;
      last = sent;
    }
    assert.ok(sent < total / 2, `the upstream wrote ${sent} bytes to a client that read nothing`);
    let events = 0;
    let tail = '';
    answer.setEncoding('utf8');
    for await (const text of answer as AsyncIterable<string>) {
      const parts = (tail + text).split('\n\n');
      tail = parts.pop() ?? '';
      events += parts.length;
    }
    assert.equal(finished, true);
    assert.equal(events, Math.ceil(total / event.length) + 1);
  });
});

/**
 * An upstream that writes `body` at once (or each of its pieces a timer turn after the one before, each then an HTTP
 * chunk and a read of its own), a relay in front of it running `relayEvents` with `repair`, and the text a client
 * reads through the relay. `watch` sees the upstream's answer before the relay listens to it.
 */
async function relayOnce(options: {
  body: string | readonly string[];
  repair: (data: string, response: ServerResponse) => string | undefined;
  quick?: (data: string) => boolean;
  ends?: (data: string) => boolean;
  watch?: (upstreamResponse: IncomingMessage) => void;
}): Promise<string> {
  const upstream = createServer((incoming, outgoing) => {
    incoming.resume();
    outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
    const pieces = typeof options.body === 'string' ? [options.body] : [...options.body];
    const next = (): void => {
      const piece = pieces.shift() ?? '';
      if (pieces.length === 0) outgoing.end(piece);
      else {
        outgoing.write(piece);
        setTimeout(next, 20);
      }
    };
    next();
  });
  const upstreamUrl = await listen(upstream);
  const relay = createServer((incoming, response) => {
    incoming.resume();
    request(upstreamUrl, (upstreamResponse) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      options.watch?.(upstreamResponse);
      relayEvents({
        upstreamResponse,
        response,
        repair: (data) => options.repair(data, response),
        ...omitUndefined({ quick: options.quick, ends: options.ends }),
      }).then(
        () => response.end(),
        () => response.destroy(),
      );
    }).end();
  });
  const relayUrl = await listen(relay);
  try {
    const answer = await new Promise<IncomingMessage>((resolve) => request(relayUrl, resolve).end());
    let text = '';
    answer.setEncoding('utf8');
    for await (const part of answer as AsyncIterable<string>) text += part;
    return text;
  } finally {
    upstream.closeAllConnections();
    relay.closeAllConnections();
    upstream.close();
    relay.close();
  }
}

describe('relayEvents when the upstream breaks off', () => {
  it('relays what came, then rejects, and the client’s answer breaks off too', async () => {
    const upstream = createServer((incoming, outgoing) => {
      incoming.resume();
      outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
      outgoing.write('data: first\n\n');
      // The model server dies mid-answer: its connection closes before the chunked body's end.
      setTimeout(() => outgoing.socket?.destroy(), 20);
    });
    const upstreamUrl = await listen(upstream);
    let relayed: Promise<string> | undefined;
    const relay = createServer((incoming, response) => {
      incoming.resume();
      request(upstreamUrl, (upstreamResponse) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        relayed = relayEvents({ upstreamResponse, response, repair: () => undefined }).then(
          () => {
            response.end();
            return 'ended';
          },
          (error: Error) => {
            response.destroy();
            return `failed: ${error.message}`;
          },
        );
      }).end();
    });
    const relayUrl = await listen(relay);
    try {
      const answer = await new Promise<IncomingMessage>((resolve) => request(relayUrl, resolve).end());
      let text = '';
      answer.setEncoding('utf8');
      const broke = await new Promise<boolean>((resolve) => {
        answer.on('data', (part: string) => {
          text += part;
        });
        answer.on('end', () => resolve(false));
        answer.on('error', () => resolve(true));
        answer.on('aborted', () => resolve(true));
      });
      assert.equal(text, 'data: first\n\n');
      assert.equal(broke, true, 'the client saw a complete answer from an upstream that broke off');
      assert.match((await relayed) ?? '', /^failed: /);
    } finally {
      upstream.closeAllConnections();
      relay.closeAllConnections();
      upstream.close();
      relay.close();
    }
  });
});

describe('relayEvents with several events in one read', () => {
  it('sends the first event before it repairs the others (an answer’s last token before its end-of-answer work)', async () => {
    const seen: Array<{ data: string; firstSent: boolean }> = [];
    // The last token and the finish, written at once as a model server does at an answer's end: one read.
    const text = await relayOnce({
      body: 'data: last token\n\ndata: finish\n\ndata: [DONE]\n\n',
      repair: (data, response) => {
        // Handed to the kernel: not corked, nothing left in the socket's buffer.
        const socket = response.socket;
        seen.push({
          data,
          firstSent: socket !== null && socket.writableCorked === 0 && socket.writableLength === 0,
        });
        return `data: ${data}\n\n`;
      },
    });
    assert.equal(text, 'data: last token\n\ndata: finish\n\ndata: [DONE]\n\n');
    assert.deepEqual(
      seen.map((event) => event.data),
      ['last token', 'finish', '[DONE]'],
    );
    assert.equal(seen[1]!.firstSent, true, 'the finish was repaired while the last token still waited');
  });
});

describe('relayEvents with quick events in one read', () => {
  it('repairs the quick events after a read’s first at once, and defers from the first other event on', async () => {
    // A microtask queued while the read's first event is repaired runs once that read's handling ends: an event
    // repaired before it ran was repaired in the same pass, one repaired after it waited for a later turn.
    let readHandled = false;
    const seen: Array<{ data: string; sameRead: boolean }> = [];
    const text = await relayOnce({
      body: 'data: token a\n\ndata: token b\n\ndata: token c\n\ndata: finish\n\ndata: token d\n\ndata: [DONE]\n\n',
      repair: (data) => {
        if (data === 'token a') queueMicrotask(() => (readHandled = true));
        seen.push({ data, sameRead: !readHandled });
        return `data: ${data}\n\n`;
      },
      quick: (data) => data.startsWith('token'),
    });
    assert.equal(
      text,
      'data: token a\n\ndata: token b\n\ndata: token c\n\ndata: finish\n\ndata: token d\n\ndata: [DONE]\n\n',
    );
    assert.deepEqual(seen, [
      { data: 'token a', sameRead: true },
      { data: 'token b', sameRead: true },
      { data: 'token c', sameRead: true },
      // The finish (end-of-answer work) waits for its turn, and what follows it keeps its place behind it.
      { data: 'finish', sameRead: false },
      { data: 'token d', sameRead: false },
      { data: '[DONE]', sameRead: false },
    ]);
  });
});

describe('relayEvents with an answer’s end in a read of its own', () => {
  it('repairs an event that ends an answer in a later turn, even when it is its read’s first', async () => {
    // Each event an HTTP chunk of its own, as a model server writes them: each is then its read's first event. A
    // microtask queued when a read arrives runs once that read's handling ends, so an event repaired before it ran
    // was repaired in its read, where it kept every other stream's read of the same burst waiting.
    let inRead = false;
    const seen: Array<{ data: string; inRead: boolean }> = [];
    const text = await relayOnce({
      body: ['data: token a\n\n', 'data: finish\n\n', 'data: [DONE]\n\n'],
      watch: (upstreamResponse) =>
        upstreamResponse.on('data', () => {
          inRead = true;
          queueMicrotask(() => (inRead = false));
        }),
      repair: (data) => {
        seen.push({ data, inRead });
        return `data: ${data}\n\n`;
      },
      quick: (data) => data.startsWith('token'),
      ends: (data) => data === 'finish',
    });
    assert.equal(text, 'data: token a\n\ndata: finish\n\ndata: [DONE]\n\n');
    assert.deepEqual(seen, [
      { data: 'token a', inRead: true },
      { data: 'finish', inRead: false },
      { data: '[DONE]', inRead: true },
    ]);
  });
});

describe('relayEvents with events the repair leaves unchanged', () => {
  it('sends one-line events on as the upstream’s own bytes, and writes others anew as valid events', async () => {
    const written: Array<string | Buffer> = [];
    const write = ChunkedBodyWriter.prototype.write;
    ChunkedBodyWriter.prototype.write = function (this: ChunkedBodyWriter, piece: string | Buffer) {
      written.push(piece);
      write.call(this, piece);
    };
    try {
      const text = await relayOnce({
        body: 'data: {"text":"ünïcode"}\n\nevent: note\ndata: two\ndata: lines\n\n: a comment\n\ndata: held\n\n',
        repair: (data) => (data === 'held' ? '' : undefined),
      });
      assert.equal(text, 'data: {"text":"ünïcode"}\n\ndata: two\ndata: lines\n\n');
    } finally {
      ChunkedBodyWriter.prototype.write = write;
    }
    // The first event went out as the bytes that came in, not decoded and encoded again.
    assert.ok(Buffer.isBuffer(written[0]), 'the unchanged event was re-encoded');
    assert.equal(written[0].toString('utf8'), 'data: {"text":"ünïcode"}\n\n');
    assert.equal(written.length, 2);
  });
});
