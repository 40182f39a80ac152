import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { omitUndefined } from '@toolbus/spec';
import { AnswerStreamFilter } from '../streaming/answer-stream-filter.ts';
import { dialectFixtures, quirkFixtures } from './__fixtures__/dialect-fixtures.ts';
import { realWorldFixtures } from './__fixtures__/real-world-fixtures.ts';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractLocatedToolCallsFromText, extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import { findModelProfile } from './model-profiles.ts';
import { defaultToolCallParsers } from './tool-call-parser-registry.ts';
import { withoutToolCallText } from './without-tool-call-text.ts';

function shown(text: string, chunkSize: number): string {
  return shownInChunks(text, chunksOf(text, chunkSize));
}

function chunksOf(text: string, chunkSize: number): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += chunkSize) chunks.push(text.slice(at, at + chunkSize));
  return chunks;
}

function shownInChunks(
  text: string,
  chunks: readonly string[],
  preferredDialects?: readonly string[],
): string {
  return streamInChunks(text, chunks, preferredDialects).shown;
}

/** What the answer filter shows, and the reasoning it hands out, for `text` in these chunks. */
function streamInChunks(
  text: string,
  chunks: readonly string[],
  preferredDialects?: readonly string[],
): { shown: string; reasoning: string } {
  const filter = new AnswerStreamFilter({ tools, ...omitUndefined({ preferredDialects }) });
  let shown = '';
  let reasoning = '';
  for (const chunk of chunks) {
    shown += filter.process(chunk);
    reasoning += filter.takeReasoning();
  }
  assert.equal(chunks.join(''), text);
  shown += filter.flush();
  return { shown, reasoning: reasoning + filter.takeReasoning() };
}

/** What the screen ends with: the shown text, minus the calls found in it when the turn loop retracts them. */
function afterRetraction(visible: string): string {
  const calls = visible.trim() ? extractLocatedToolCallsFromText(visible, tools) : [];
  return (calls.length > 0 ? withoutToolCallText(visible, calls) : visible).trim();
}

/** Chunks of 1 to 12 characters, the same for one seed. */
function randomChunks(text: string, seed: number): string[] {
  let state = seed;
  const chunks: string[] = [];
  for (let at = 0; at < text.length; ) {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    const size = 1 + (state % 12);
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  return chunks;
}

describe('dialect fixtures (one per model family template)', () => {
  it('covers every registered dialect', () => {
    const covered = new Set(dialectFixtures.map((fixture) => fixture.dialect));
    const missing = defaultToolCallParsers.map((parser) => parser.name).filter((name) => !covered.has(name));
    assert.deepEqual(missing, []);
  });

  for (const fixture of dialectFixtures) {
    describe(fixture.name, () => {
      it('is recovered by all dialects together, and by its own dialect alone', () => {
        assert.deepEqual(extractToolCallsFromText(fixture.text, tools), fixture.calls);
        const own = defaultToolCallParsers.filter((parser) => parser.name === fixture.dialect);
        assert.deepEqual(extractToolCallsFromText(fixture.text, tools, { parsers: own }), fixture.calls);
      });

      it("is recovered first by the model profile's dialects", () => {
        const profile = findModelProfile(fixture.model);
        if (profile) assert.ok(profile.dialects.includes(fixture.dialect), `${profile.family} lists it`);
        const preferredDialects = profile?.dialects ?? [];
        assert.deepEqual(extractToolCallsFromText(fixture.text, tools, { preferredDialects }), fixture.calls);
      });

      it('shows only the prose around the calls, whatever the chunking', () => {
        for (const size of [1, 3, 7, fixture.text.length]) {
          assert.equal(shown(fixture.text, size), fixture.visible, `chunks of ${size}`);
        }
        assert.equal(afterRetraction(fixture.visible), (fixture.prose ?? fixture.visible).trim());
      });
    });
  }
});

describe('real-world fixtures (answers as self-hosted models write them)', () => {
  for (const fixture of realWorldFixtures) {
    describe(fixture.name, () => {
      const profile = findModelProfile(fixture.model);
      it('is recovered with its name and arguments, by all dialects, its own and its profile', () => {
        assert.deepEqual(extractToolCallsFromText(fixture.text, tools), fixture.calls);
        assert.deepEqual(
          extractToolCallsFromText(fixture.text, tools, { preferredDialects: profile?.dialects ?? [] }),
          fixture.calls,
        );
        if (fixture.calls.length === 0) return;
        const own = defaultToolCallParsers.filter((parser) => parser.name === fixture.dialect);
        assert.deepEqual(extractToolCallsFromText(fixture.text, tools, { parsers: own }), fixture.calls);
      });

      it('streams the same text under every chunking, and ends with the prose alone', () => {
        const chunkings = [
          ...[1, 2, 3, 5, 7, 13, fixture.text.length].map((size) => chunksOf(fixture.text, size)),
          ...Array.from({ length: 12 }, (_, seed) => randomChunks(fixture.text, seed + 1)),
        ];
        for (const chunks of chunkings) {
          const label = `chunks ${JSON.stringify(chunks.slice(0, 4))}…`;
          const streamed = streamInChunks(fixture.text, chunks);
          assert.equal(streamed.shown, fixture.visible, label);
          assert.equal(streamed.reasoning, fixture.reasoning ?? '', `${label}, reasoning`);
          assert.equal(
            shownInChunks(fixture.text, chunks, profile?.dialects),
            fixture.visible,
            `${label}, profile`,
          );
        }
        assert.equal(afterRetraction(fixture.visible), (fixture.prose ?? fixture.visible).trim());
        // A prose answer that only mentions markup streams unchanged.
        if (fixture.calls.length === 0 && !fixture.controlTokens) assert.equal(fixture.visible, fixture.text);
      });
    });
  }
});

describe('quirk fixtures', () => {
  for (const fixture of quirkFixtures) {
    it(fixture.name, () => {
      assert.deepEqual(extractToolCallsFromText(fixture.text, tools), fixture.calls);
      const profile = findModelProfile(fixture.model);
      assert.deepEqual(
        extractToolCallsFromText(fixture.text, tools, { preferredDialects: profile?.dialects ?? [] }),
        fixture.calls,
      );
      for (const size of [1, 5, fixture.text.length]) {
        assert.equal(shown(fixture.text, size), fixture.visible, `chunks of ${size}`);
      }
      assert.equal(afterRetraction(fixture.visible), (fixture.prose ?? fixture.visible).trim());
    });
  }

  it('finds the real call after a long run of unbalanced braces and unclosed strings', () => {
    const call = '{"name": "get_weather", "arguments": {"city": "Oslo"}}';
    for (const noise of ['{'.repeat(200_000), '{"a": "'.repeat(50_000), '[{'.repeat(100_000)]) {
      assert.deepEqual(extractToolCallsFromText(`${noise}\n${call}`, tools), [
        { name: 'get_weather', arguments: { city: 'Oslo' } },
      ]);
    }
  });

  it('cuts every recovered call out of the text, leaving the prose around it', () => {
    const text =
      'First.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\nThen [get_time(tz="CET")]\nDone.';
    const calls = extractLocatedToolCallsFromText(text, tools);
    assert.equal(calls.length, 2);
    assert.equal(withoutToolCallText(text, calls), 'First.\n\nThen \nDone.');
  });
});
