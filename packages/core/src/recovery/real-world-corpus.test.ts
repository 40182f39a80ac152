import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { corpusChunkSizes, loadRealWorldCorpus, scoreCorpus } from './__fixtures__/real-world-corpus.ts';

const cases = loadRealWorldCorpus();

describe('real-world corpus (model outputs quoted in public issues and parser tests)', () => {
  it('holds at least 180 outputs, 30 of them negatives, each with its source, model and tools', () => {
    assert.ok(cases.length >= 180, `${cases.length} cases`);
    assert.ok(cases.filter((entry) => entry.calls.length === 0).length >= 30);
    assert.equal(new Set(cases.map((entry) => entry.id)).size, cases.length, 'ids are unique');
    for (const entry of cases) {
      assert.match(entry.source, /^https:\/\/github\.com\/[^/]+\/[^/]+\//, entry.id);
      assert.ok(entry.model.trim() && entry.text.trim(), entry.id);
      assert.ok(entry.tools.length > 0, `${entry.id} declares tools`);
      assert.equal(typeof entry.toolsInferred, 'boolean', entry.id);
      const names = new Set(entry.tools.map((tool) => tool.name));
      for (const call of entry.calls)
        assert.ok(names.has(call.name), `${entry.id}: ${call.name} is declared`);
      if (entry.calls.length === 0) assert.ok(entry.negative, `${entry.id} says why it makes no call`);
    }
  });
});

describe('recovery on the real-world corpus', () => {
  const score = scoreCorpus(cases);
  const failing = (pick: (entry: (typeof score.scores)[number]) => boolean) =>
    score.scores.filter(pick).map((entry) => entry.id);

  it('extracts at least 90 % of the calls with their name and arguments', () => {
    assert.ok(
      score.right / score.expected >= 0.9,
      `${score.right}/${score.expected}; missed in ${failing((entry) => entry.right < entry.expected)}`,
    );
  });

  it('ends with a clean display in at least 95 % of the outputs at 1-, 7- and 64-character chunks', () => {
    corpusChunkSizes.forEach((size, index) => {
      assert.ok(
        score.clean[index]! / score.cases >= 0.95,
        `chunks of ${size}: ${score.clean[index]}/${score.cases}; not clean: ${failing((entry) => !entry.clean[index])}`,
      );
    });
  });

  it("ends clean where the answer opens with Granite 3.3's <response> wrapper (llama.cpp's Granite and Hermes tests)", () => {
    for (const id of ['granite-llamacpp-think-response-tags', 'llamacpp-hermes-response-tag']) {
      const entry = score.scores.find((candidate) => candidate.id === id);
      assert.ok(entry, id);
      assert.deepEqual(entry.clean, [true, true, true], `${id} shows ${JSON.stringify(entry.shown)}`);
      assert.equal(entry.right, entry.expected, id);
    }
  });

  it('makes no call from the negatives (text that shows, quotes or rejects a call)', () => {
    assert.equal(
      score.falseCalls,
      0,
      `${failing((entry) => entry.expected === 0 && entry.extracted.length > 0)}`,
    );
  });
});
