import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createParser } from 'eventsource-parser';
import { SseEventReader, sseData } from './sse-event-reader.ts';

// What a spec-following parser makes of the whole stream at once: the reference the byte reader must match.
function referenceData(stream: string): string[] {
  const data: string[] = [];
  createParser({ onEvent: (event) => data.push(event.data) }).feed(stream);
  return data;
}

function readAll(reads: Buffer[]): { data: string[]; raw: Array<string | undefined> } {
  const reader = new SseEventReader();
  const events = reads.flatMap((read) => reader.read(read));
  return { data: events.map((event) => event.data), raw: events.map((event) => event.raw?.toString('utf8')) };
}

// Every way of cutting the stream in two, and one byte at a time.
function cuts(stream: string): Buffer[][] {
  const bytes = Buffer.from(stream);
  const all: Buffer[][] = [[bytes]];
  for (let at = 1; at < bytes.length; at += 1) all.push([bytes.subarray(0, at), bytes.subarray(at)]);
  all.push(Array.from(bytes, (byte) => Buffer.from([byte])));
  return all;
}

const mixed = [
  '\n\ndata: {"a":1}\n\n',
  ': a comment, not an event\n\n',
  'event: message\nid: 7\ndata: with fields\n\n',
  'data: first line\ndata:second line\ndata\n\n',
  'data:no space\n\n',
  'dataX: not data\n\n',
  'data: héllo wörld ✓ 🎉\n\n',
  'retry: 10\n\n',
  'data: [DONE]\n\n',
  'data: unfinished',
].join('');

describe('SseEventReader', () => {
  it('reads what a spec-following parser reads, however the bytes are cut', () => {
    const expected = referenceData(mixed);
    assert.equal(expected.length, 6);
    for (const reads of cuts(mixed)) assert.deepEqual(readAll(reads).data, expected);
  });

  it('gives the bytes of one-line data events as they came, and none for others', () => {
    for (const reads of cuts(mixed)) {
      assert.deepEqual(readAll(reads).raw, [
        'data: {"a":1}\n\n',
        undefined,
        undefined,
        'data:no space\n\n',
        'data: héllo wörld ✓ 🎉\n\n',
        'data: [DONE]\n\n',
      ]);
    }
  });

  it('reads CRLF and CR line ends, and drops a byte-order mark', () => {
    for (const stream of [
      mixed.replaceAll('\n', '\r\n'),
      `data: before\n\n${mixed.replaceAll('\n', '\r\n')}`,
    ]) {
      const expected = referenceData(stream);
      assert.ok(expected.length >= 6);
      for (const reads of cuts(stream)) assert.deepEqual(readAll(reads).data, expected);
    }
    // CR alone, in one read (eventsource-parser, the fallback, loses an event when a read ends between two CRs).
    const crOnly = mixed.replaceAll('\n', '\r');
    assert.deepEqual(readAll([Buffer.from(crOnly)]).data, referenceData(mixed));
    for (const reads of cuts(`\ufeff${mixed}`)) assert.deepEqual(readAll(reads).data, referenceData(mixed));
  });

  it('writes multi-line data back as one data line per line', () => {
    assert.equal(sseData('one'), 'data: one\n\n');
    assert.equal(sseData('one\ntwo'), 'data: one\ndata: two\n\n');
    assert.deepEqual(referenceData(sseData('one\ntwo\n')), ['one\ntwo\n']);
  });
});
