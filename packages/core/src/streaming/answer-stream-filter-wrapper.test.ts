import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerRepair } from '../middleware/answer-repair.ts';
import { tools } from '../recovery/__fixtures__/tool-definitions.ts';
import { extractLocatedToolCallsFromText } from '../recovery/extract-tool-calls-from-text.ts';
import { withoutToolCallMarkupTags } from '../recovery/tool-call-markup-marker.ts';
import { defaultToolCallMarkupMarkers } from '../recovery/tool-call-parser-registry.ts';
import { withoutToolCallText } from '../recovery/without-tool-call-text.ts';
import { AnswerStreamFilter } from './answer-stream-filter.ts';

// Granite 3.3 wraps its answer in `<response>…</response>` after its thinking (llama.cpp's Granite format), and
// llama.cpp's Hermes 2 Pro tests wrap a call's JSON in it: a see-through wrapper, its tags never shown where it
// opens the answer, its content streamed and read for calls as any answer text.

const chunkSizes = [1, 7, 64];
const hermesCall = '{"name": "get_weather", "arguments": {"city": "Oslo"}}';

/** `text` streamed through a fresh answer filter in chunks of `size`: what it shows, its reasoning and cuts. */
function streamed(text: string, size: number) {
  const filter = new AnswerStreamFilter({ tools });
  let shown = '';
  let reasoning = '';
  for (let at = 0; at < text.length; at += size) {
    shown += filter.process(text.slice(at, at + size));
    reasoning += filter.takeReasoning();
  }
  shown += filter.flush();
  return { shown, reasoning: reasoning + filter.takeReasoning(), cuts: filter.takeCuts() };
}

/** At every chunk size, `text` shows as `shown` (blanks at the ends aside) with `reasoning` handed out. */
function assertShown(text: string, shown: string, reasoning = '') {
  for (const size of chunkSizes) {
    const result = streamed(text, size);
    assert.equal(result.shown.trim(), shown, `chunks of ${size}`);
    assert.equal(result.reasoning, reasoning, `chunks of ${size}`);
  }
}

describe('AnswerStreamFilter: a see-through <response> wrapper opening the answer', () => {
  it('stays open around a call block inside it: its close is hidden too, as in the whole answer', () => {
    for (const [text, shown] of [
      [`<response>\n<tool_call>\n${hermesCall}\n</tool_call>\n</response>`, ''],
      [`<response>Sure.\n<tool_call>\n${hermesCall}\n</tool_call>\nDone.</response>`, 'Sure.\n\nDone.'],
    ] as const) {
      assertShown(text, shown);
      assert.equal(new AnswerRepair({ tools }).whole(text).text.trim(), shown);
    }
  });

  it("hides Granite 3.3's wrapper after its thinking, with or without thinking, at 1, 7 and 64-char chunks", () => {
    const prose = "Hello, world!\nWhat's up?";
    assertShown(`<think>I'm\nthinking</think><response>${prose}</response>`, prose, "I'm\nthinking");
    assertShown(`<think>Plan.</think>\n\n<response>${prose}</response>\n`, prose, 'Plan.');
    assertShown(`<response>${prose}</response>`, prose);
    assertShown(`  <RESPONSE>${prose}</Response>`, prose);
  });

  it("cuts the Hermes call llama.cpp's tests wrap in it, and shows nothing of the wrapper", () => {
    for (const size of chunkSizes) {
      const result = streamed(`<response>\n  ${hermesCall}\n</response>`, size);
      assert.equal(result.shown.trim(), '', `chunks of ${size}`);
      assert.deepEqual(
        result.cuts.flatMap((cut) => cut.calls ?? []).map((call) => call.name),
        ['get_weather'],
        `chunks of ${size}`,
      );
    }
  });

  it('streams prose in the wrapper and cuts the call line after it', () => {
    assertShown(`<response>Let me check.\n${hermesCall}\n</response>`, 'Let me check.');
    assertShown(
      `<think>Oslo.</think><response>Let me check.\n${hermesCall}</response>`,
      'Let me check.',
      'Oslo.',
    );
  });

  it("streams Granite 3.3's answer as it comes, not at its close", () => {
    const filter = new AnswerStreamFilter({ tools });
    assert.equal(filter.process('<think>Plan.</think>'), '');
    assert.equal(filter.process('<response>Hello, '), 'Hello, ');
    assert.equal(filter.process('world!\nHow are '), 'world!\nHow are ');
    assert.equal(filter.process('you?</response>') + filter.flush(), 'you?');
    assert.equal(filter.takeReasoning(), 'Plan.');
  });

  it('shows an unclosed wrapper’s text without its opening', () => {
    assertShown('<response>Hello, world!', 'Hello, world!');
    assertShown('<think>Hm.</think><response>Hello, world!\nMore.', 'Hello, world!\nMore.', 'Hm.');
  });

  it('shows <response> in the middle of prose and a close no hidden opening opened, as written', () => {
    // The same tags hidden where they open the answer, so that these fail if the wrapper is never hidden.
    assertShown('<response>Done.</response>', 'Done.');
    assertShown('Wrap it in a <response> tag.</response>', 'Wrap it in a <response> tag.</response>');
    assertShown('Sure.\n<response>Done.</response>', 'Sure.\n<response>Done.</response>');
    assertShown('Done.</response>', 'Done.</response>');
    // Only the first close after the opening is the wrapper's: a later one is text.
    assertShown('<response>Use </response> to close it.</response>', 'Use  to close it.</response>');
    // In inline code the close is a mention: the wrapper stays open past it.
    assertShown('<response>Write `</response>` last.</response>', 'Write `</response>` last.');
    const fenced = 'Close it:\n```xml\n</response>\n```\nDone.';
    assertShown(`<response>${fenced}</response>`, fenced);
  });
});

describe('the whole text reads the same see-through wrapper', () => {
  it("AnswerRepair.whole: Granite's answer without its tags, the Hermes call recovered and no text", () => {
    const granite = new AnswerRepair({ tools }).whole(
      "<think>I'm\nthinking</think><response>Hello, world!\nWhat's up?</response>",
    );
    assert.equal(granite.text, "Hello, world!\nWhat's up?");
    assert.equal(granite.reasoning, "I'm\nthinking");
    assert.deepEqual(granite.calls, []);
    assert.equal(granite.unreadable, undefined);
    const hermes = new AnswerRepair({ tools }).whole(`<response>\n  ${hermesCall}\n</response>`);
    assert.equal(hermes.text.trim(), '');
    assert.deepEqual(hermes.calls, [{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
  });

  it('the prose once calls are cut out, and the tags stripped, lose the wrapper only where it opens the answer', () => {
    const text = `<response>Let me check.\n${hermesCall}\n</response>`;
    const calls = extractLocatedToolCallsFromText(text, tools);
    assert.equal(calls.length, 1);
    assert.equal(withoutToolCallText(text, calls), 'Let me check.');
    const markers = defaultToolCallMarkupMarkers;
    assert.equal(withoutToolCallMarkupTags('<think>a</think>\n<response>b</response>', markers), '\nb');
    assert.equal(withoutToolCallMarkupTags('<response>b', markers), 'b');
    assert.equal(withoutToolCallMarkupTags('a <response>b</response>', markers), 'a <response>b</response>');
    assert.equal(withoutToolCallMarkupTags('b</response>', markers), 'b</response>');
    // A close in code is a mention, as the filter reads it while the text streams.
    const fenced = 'Close it:\n```xml\n</response>\n```\nand `</response>`.';
    assert.equal(withoutToolCallMarkupTags(`<response>${fenced}</response>`, markers), fenced);
  });
});
