import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { cutText } from '../testing/scripted-turn.ts';
import { createArgumentDeltaStreamer } from './argument-delta-streamer.ts';

async function streamAll(
  fragments: readonly string[],
  index = 0,
): Promise<{ deltas: Record<string, string>[]; joined: Record<string, string> }> {
  const streamer = createArgumentDeltaStreamer();
  const deltas: Record<string, string>[] = [];
  for (const fragment of fragments) deltas.push(await streamer.push(index, fragment));
  deltas.push(await streamer.end(index));
  const joined: Record<string, string> = {};
  for (const delta of deltas)
    for (const [key, value] of Object.entries(delta)) joined[key] = (joined[key] ?? '') + value;
  return { deltas, joined };
}

describe('createArgumentDeltaStreamer', () => {
  it('streams string growth per key as it arrives', async () => {
    const streamer = createArgumentDeltaStreamer();
    assert.deepEqual(await streamer.push(0, '{"code": "pri'), { code: 'pri' });
    assert.deepEqual(await streamer.push(0, 'nt(1)'), { code: 'nt(1)' });
    assert.deepEqual(await streamer.push(0, '", "timeout": 30, "lang'), {});
    assert.deepEqual(await streamer.push(0, '": "py'), { lang: 'py' });
    assert.deepEqual(await streamer.push(0, '"}'), {});
  });

  it('never streams numbers, booleans, arrays or objects', async () => {
    const { joined } = await streamAll([
      '{"n": 12',
      '34, "b": tr',
      'ue, "a": ["x", "y"], "o": {"k": "v"}, "s": "ok"}',
    ]);
    assert.deepEqual(joined, { s: 'ok' });
  });

  it('decodes escapes split across fragments', async () => {
    const { joined } = await streamAll([
      '{"code": "a\\',
      'nb \\\\',
      'n c \\"q\\',
      '" \\u00',
      'e9 \\ud83d',
      '\\ude00"}',
    ]);
    assert.deepEqual(joined, { code: 'a\nb \\n c "q" é 😀' });
  });

  it('keeps calls at different indexes apart', async () => {
    const streamer = createArgumentDeltaStreamer();
    assert.deepEqual(await streamer.push(0, '{"code": "A'), { code: 'A' });
    assert.deepEqual(await streamer.push(1, '{"code": "B'), { code: 'B' });
    assert.deepEqual(await streamer.push(0, 'A'), { code: 'A' });
  });

  it('handles pushes that are not awaited one by one, in order', async () => {
    const streamer = createArgumentDeltaStreamer();
    const results = await Promise.all(
      ['{"code": "a', 'b', 'c\\', 'n', 'd"}'].map((fragment) => streamer.push(0, fragment)),
    );
    assert.equal(results.map((delta) => delta.code ?? '').join(''), 'abc\nd');
  });

  it('stops quietly on invalid JSON', async () => {
    const streamer = createArgumentDeltaStreamer();
    assert.deepEqual(await streamer.push(0, '{"code": "x"'), { code: 'x' });
    assert.deepEqual(await streamer.push(0, ' oops'), {});
    assert.deepEqual(await streamer.push(0, '"more"'), {});
  });

  it('any fragmentation streams exactly the final string values', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom('code', 'path', 'n', 'list'),
          fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.integer(), fc.array(fc.string())),
        ),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (value, cuts) => {
          const json = JSON.stringify(value);
          const fragments = cutText(json, cuts);
          const { joined } = await streamAll(fragments);
          const expected: Record<string, string> = {};
          for (const [key, item] of Object.entries(value))
            if (typeof item === 'string' && item !== '') expected[key] = item;
          assert.deepEqual(joined, expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
