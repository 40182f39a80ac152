import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ToolCallMarkupStreamFilter } from '../streaming/tool-call-markup-stream-filter.ts';
import type { ToolCallTextParser } from './extracted-tool-call.ts';
import { looksLikeToolCallPayload } from './looks-like-tool-call-payload.ts';
import {
  hasToolCallMarker,
  type ToolCallMarkupMarker,
  withoutToolCallMarkupTags,
} from './tool-call-markup-marker.ts';
import {
  createToolCallParserRegistry,
  defaultToolCallMarkupMarkers,
  defaultToolCallParsers,
  toolCallMarkupMarkersOf,
} from './tool-call-parser-registry.ts';

function filtered(text: string, filter = new ToolCallMarkupStreamFilter()): string {
  let output = '';
  for (const character of text) output += filter.process(character);
  return output + filter.flush();
}

describe('tool-call markers come from the dialect parsers', () => {
  const withMarkers = defaultToolCallParsers.filter((parser) => (parser.markers ?? []).length > 0);

  it('every dialect with markup declares it', () => {
    const markupFree = defaultToolCallParsers
      .filter((parser) => !withMarkers.includes(parser))
      .map((parser) => parser.name);
    // `tool-tag`'s markers are the declared tools' elements, added per request (see `answerMarkersOf`).
    assert.deepEqual(markupFree.sort(), ['json', 'react', 'tool-tag']);
  });

  for (const parser of withMarkers) {
    for (const marker of parser.markers ?? []) {
      if (marker.token || marker.reasoning) continue;
      it(`${parser.name}: ${marker.open} is filtered, gated and stripped`, () => {
        const open = `${marker.open}${marker.requiresTagEnd ? '>' : ''}`;
        const close = marker.closes[0] ?? '';
        const text = `Before ${open} secret ${close} after`;
        assert.equal(filtered(text), close ? 'Before  after' : 'Before ');
        assert.equal(looksLikeToolCallPayload(text), true);
        assert.equal(hasToolCallMarker(text, defaultToolCallMarkupMarkers), true);
        assert.equal(withoutToolCallMarkupTags(text, defaultToolCallMarkupMarkers), 'Before  secret  after');
      });
    }
  }

  const standAlone = withMarkers.flatMap((parser) =>
    (parser.markers ?? []).filter((marker) => marker.token && !marker.wrapsAnswer),
  );
  for (const marker of standAlone) {
    it(`${marker.open} stands alone: hidden, its text shown, no sign of a call`, () => {
      const text = `Before ${marker.open} shown after`;
      assert.equal(filtered(text), 'Before  shown after');
      assert.equal(looksLikeToolCallPayload(text), false);
      assert.equal(withoutToolCallMarkupTags(text, defaultToolCallMarkupMarkers), 'Before  shown after');
    });
  }

  const wrappers = withMarkers.flatMap((parser) =>
    (parser.markers ?? []).filter((marker) => marker.wrapsAnswer),
  );
  it('one see-through answer wrapper: <response>', () => {
    assert.deepEqual(
      wrappers.map((marker) => marker.open),
      ['<response>'],
    );
  });
  for (const marker of wrappers) {
    it(`${marker.open} wraps the answer it opens: hidden with its close, a mention elsewhere, no sign of a call`, () => {
      const close = marker.closes[0]!;
      const wrapped = `${marker.open}shown${close} after`;
      assert.equal(filtered(wrapped), 'shown after');
      assert.equal(withoutToolCallMarkupTags(wrapped, defaultToolCallMarkupMarkers), 'shown after');
      const mention = `Before ${marker.open} shown${close} after`;
      assert.equal(filtered(mention), mention);
      assert.equal(withoutToolCallMarkupTags(mention, defaultToolCallMarkupMarkers), mention);
      assert.equal(looksLikeToolCallPayload(wrapped), false);
      assert.equal(hasToolCallMarker(mention, defaultToolCallMarkupMarkers), false);
    });
  }

  const reasoningMarkers = withMarkers.flatMap((parser) =>
    (parser.markers ?? []).filter((marker) => marker.reasoning),
  );
  for (const marker of reasoningMarkers) {
    it(`${marker.open} opens reasoning: handed out as reasoning, never shown or kept, no sign of a call`, () => {
      // A marker that must open the answer (`<think>`) is a mention anywhere else, shown as written.
      const before = marker.opensAnswer ? ' ' : 'Before ';
      if (marker.opensAnswer) {
        const mention = `Before ${marker.open} thinking ${marker.closes[0]} after`;
        const prose = new ToolCallMarkupStreamFilter();
        let shownMention = '';
        for (const character of mention) shownMention += prose.process(character);
        assert.equal(shownMention + prose.flush(), mention);
        assert.equal(prose.takeReasoning(), '');
        assert.equal(withoutToolCallMarkupTags(mention, defaultToolCallMarkupMarkers), mention);
      }
      const text = `${before}${marker.open} thinking ${marker.closes[0]} after`;
      const filter = new ToolCallMarkupStreamFilter();
      let shown = '';
      let reasoning = '';
      for (const character of text) {
        shown += filter.process(character);
        reasoning += filter.takeReasoning();
      }
      shown += filter.flush();
      reasoning += filter.takeReasoning();
      // After thinking that opened the answer, the blanks before the answer go too.
      assert.equal(shown, marker.opensAnswer ? ' after' : 'Before  after');
      assert.equal(reasoning, ' thinking ');
      assert.equal(looksLikeToolCallPayload(text), false);
      assert.equal(
        withoutToolCallMarkupTags(text, defaultToolCallMarkupMarkers),
        marker.opensAnswer ? ' after' : 'Before  after',
      );
      // Unclosed at the end of the stream: still reasoning, and never shown.
      const unclosed = new ToolCallMarkupStreamFilter();
      const lead = marker.opensAnswer ? '\n' : 'Hi ';
      assert.equal(unclosed.process(`${lead}${marker.open} still thinking`), lead);
      assert.equal(unclosed.openBlock, undefined, 'not a markup block to recover calls from');
      assert.equal(unclosed.flush(), '');
      assert.equal(unclosed.takeReasoning(), ' still thinking');
    });
  }

  it("a registered dialect's markers are filtered and gated too", () => {
    const atParser: ToolCallTextParser = {
      name: 'at-signs',
      markers: [{ open: '@@call', closes: ['@@end'] }],
      detect: (text) => text.includes('@@call'),
      parse: () => [],
    };
    const registry = createToolCallParserRegistry();
    registry.register(atParser);
    const text = 'Hi @@call get_weather city=Oslo @@end there';
    assert.equal(looksLikeToolCallPayload(text), false);
    assert.equal(looksLikeToolCallPayload(text, undefined, registry), true);
    const filter = new ToolCallMarkupStreamFilter(toolCallMarkupMarkersOf(registry));
    assert.equal(filtered(text, filter), 'Hi  there');
  });

  it('hides a closing marker whose opening the model forgot, and leaves a marker mentioned in backticks', () => {
    assert.equal(filtered('{"name": "x"}</tool_call> done'), '{"name": "x"} done');
    assert.equal(filtered('Done.<|eot_id|>'), 'Done.');
    const mention = 'Wrap calls in `<tool_call>` and end them with `</tool_call>`.';
    assert.equal(filtered(mention), mention);
    assert.equal(new ToolCallMarkupStreamFilter().process(mention), mention);
    const example =
      'The format:\n```xml\n<tool_call>{"name": "x"}</tool_call>\n```\nthen <tool_call>hidden</tool_call>.';
    assert.equal(filtered(example), 'The format:\n```xml\n<tool_call>{"name": "x"}</tool_call>\n```\nthen .');
    assert.equal(
      filtered('a `b` <tool_call>hidden</tool_call> c'),
      'a `b`  c',
      'closed inline code ends the mention',
    );
  });

  it('keeps the unclosed block it hides, for the answer filter to recover or show', () => {
    const filter = new ToolCallMarkupStreamFilter();
    assert.equal(filter.process('Hi <tool_call>{"name": "get_'), 'Hi ');
    assert.equal(filter.process('weather"}'), '');
    assert.equal(filter.openBlock, '<tool_call>{"name": "get_weather"}');
    assert.equal(filter.flush(), '');
    assert.equal(filter.openBlock, undefined);
  });
});

describe('hasToolCallMarker', () => {
  // What it answers, the plain way: every opening marker searched in the lower-cased text.
  function holdsMarkerOneByOne(text: string, markers: readonly ToolCallMarkupMarker[]): boolean {
    const lower = text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
    return markers.some((marker) => {
      if (marker.token === true || marker.reasoning === true) return false;
      const open = marker.open.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
      for (let at = lower.indexOf(open); at >= 0; at = lower.indexOf(open, at + 1)) {
        if (!marker.requiresTagEnd || /^[>/ \n\r\t]/.test(lower.slice(at + open.length))) return true;
      }
      return false;
    });
  }
  const opens = defaultToolCallMarkupMarkers.map((marker) => marker.open);
  const piece = fc.oneof(
    fc.constantFrom(...opens),
    fc.constantFrom(...opens).map((open) => open.toUpperCase()),
    fc.constantFrom(...opens).map((open) => open.slice(0, -1)),
    fc.constantFrom('<', '[', '|', '>', '/', ' ', '\n', 'call', 'Tool', 'text ', '`'),
  );
  const letterFirst: ToolCallMarkupMarker = { open: 'Action:', closes: ['\n'] };

  it('finds a marker whatever its case and place, or the lack of one, as a search per marker does', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        for (const markers of [
          defaultToolCallMarkupMarkers,
          [...defaultToolCallMarkupMarkers, letterFirst],
        ]) {
          assert.equal(hasToolCallMarker(text, markers), holdsMarkerOneByOne(text, markers), text);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a marker that starts with a letter in any case', () => {
    assert.equal(hasToolCallMarker('Then ACTION: go', [letterFirst]), true);
    assert.equal(hasToolCallMarker('Then act: go', [letterFirst]), false);
  });
});
