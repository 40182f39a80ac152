import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerStreamFilter } from '../streaming/answer-stream-filter.ts';
import { dialectFixtures, quirkFixtures } from './__fixtures__/dialect-fixtures.ts';
import { tools } from './__fixtures__/tool-definitions.ts';
import { extractLocatedToolCallsFromText, extractToolCallsFromText } from './extract-tool-calls-from-text.ts';
import { findModelProfile } from './model-profiles.ts';
import { defaultToolCallParsers } from './tool-call-parser-registry.ts';
import { withoutToolCallText } from './without-tool-call-text.ts';

function shown(text: string, chunkSize: number): string {
  const filter = new AnswerStreamFilter({ tools });
  let output = '';
  for (let at = 0; at < text.length; at += chunkSize)
    output += filter.process(text.slice(at, at + chunkSize));
  return output + filter.flush();
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
