import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseServerSentEvents, type ServerSentEvent } from './parse-server-sent-events.ts';
import { compareSemanticVersions, parseSemanticVersion } from './semantic-version.ts';

async function parse(chunks: string[]): Promise<ServerSentEvent[]> {
  const encoder = new TextEncoder();
  const source = (async function* () {
    for (const chunk of chunks) yield encoder.encode(chunk);
  })();
  const events: ServerSentEvent[] = [];
  for await (const event of parseServerSentEvents(source)) events.push(event);
  return events;
}

describe('parseServerSentEvents', () => {
  it('reads events split anywhere, with CRLF, comments and multi-line data', async () => {
    const text =
      ': comment\r\nevent: output\r\ndata: {"a":1}\r\n\r\nevent: result\ndata: line one\ndata: line two\n\n';
    const everyByte = await parse([...text]);
    const whole = await parse([text]);
    const expected = [
      { event: 'output', data: '{"a":1}' },
      { event: 'result', data: 'line one\nline two' },
    ];
    assert.deepEqual(everyByte, expected);
    assert.deepEqual(whole, expected);
  });

  it('drops an event cut off before its blank line', async () => {
    assert.deepEqual(await parse(['event: output\ndata: 1\n\nevent: result\ndata: 2\n']), [
      { event: 'output', data: '1' },
    ]);
  });

  it('keeps multi-byte characters split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: π≈3\n\n');
    const source = (async function* () {
      for (const byte of bytes) yield new Uint8Array([byte]);
    })();
    const events: ServerSentEvent[] = [];
    for await (const event of parseServerSentEvents(source)) events.push(event);
    assert.deepEqual(events, [{ event: 'message', data: 'π≈3' }]);
  });
});

describe('parseSemanticVersion', () => {
  it('ignores a v prefix and suffixes, and reads garbage or nothing as 0.0.0', () => {
    assert.deepEqual(parseSemanticVersion('v1.2.3-rc.1+abc'), [1, 2, 3]);
    assert.deepEqual(parseSemanticVersion('0.4'), [0, 4, 0]);
    assert.deepEqual(parseSemanticVersion('latest'), [0, 0, 0]);
    assert.deepEqual(parseSemanticVersion(undefined), [0, 0, 0]);
    assert.ok(compareSemanticVersions([0, 10, 0], [0, 4, 0]) > 0);
    assert.ok(compareSemanticVersions([0, 3, 9], [0, 4, 0]) < 0);
  });
});
