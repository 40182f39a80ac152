import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resolveLanguageModel } from '@toolbus/core';
import { type ScriptedModelServer, startScriptedModelServer } from '@toolbus/core/testing';
import type { CitedDocument } from '@toolbus/spec';
import { checkCitationSupport } from './check-citation-support.ts';
import { figuresDisagree } from './claim-figures.ts';

const source = [
  'The pilot study followed 7 hours of training per nurse in March 2024.',
  'Adoption reached 12% of wards, and the budget was $1.5 million for the first year.',
  'The new protocol is effective for adults.',
  'Average waiting time fell by 30 minutes.',
].join(' ');

function document(content: string): CitedDocument {
  return { id: 'doc-1', title: 'Pilot report', blurb: '', content, sourceType: 'web', citationNumber: 1 };
}

describe('the citation check reads figures, dates and negations', () => {
  let judge: ScriptedModelServer;
  const judged: string[] = [];
  before(async () => {
    judge = await startScriptedModelServer({
      handler: (request) => {
        const claims = request.lastMessage?.text ?? '';
        judged.push(claims);
        const count = claims.match(/^Claim \d+:/gm)?.length ?? 0;
        const verdicts = Array.from({ length: count }, (_, index) => ({
          claim: index + 1,
          verdict: 'unsupported',
        }));
        return [
          { type: 'tool-call', id: 'call_v', name: 'record_citation_verdicts', arguments: { verdicts } },
        ];
      },
    });
  });
  after(() => judge.close());

  async function check(sentence: string) {
    judged.length = 0;
    const [result] = await checkCitationSupport({
      text: sentence.replace(/\.$/, ' [1].'),
      documents: new Map([[1, document(source)]]),
      model: resolveLanguageModel(`openai-compatible:${judge.url}/v1#judge`, { env: {} }),
      batchSize: 4,
      maxCalls: 2,
      prompt: 'Judge each claim.',
    });
    assert.ok(result);
    return { result, judged: judged.length };
  }

  it('passes a sentence whose words and figures all agree with the source, without asking the judge', async () => {
    for (const sentence of [
      'The pilot study followed 7 hours of training per nurse in March 2024.',
      'The budget was $1.5 million for the first year, and adoption reached 12% of wards.',
    ]) {
      const { result, judged: calls } = await check(sentence);
      assert.equal(result.method, 'lexical', sentence);
      assert.equal(result.verdict, 'supported');
      assert.equal(calls, 0);
    }
  });

  it('sends a claim whose figure, date, percentage, amount or negation differs to the judge', async () => {
    for (const sentence of [
      'The pilot study followed 700 hours of training per nurse in March 2024.', // a figure
      'The pilot study followed 7 hours of training per nurse in March 2023.', // a year
      'The pilot study followed 7 hours of training per nurse in May 2024.', // a month
      'The pilot study followed 7 days of training per nurse in March 2024.', // a unit
      'Adoption reached 21% of wards, and the budget was $1.5 million for the first year.', // a percentage
      'Adoption reached 12% of wards, and the budget was $15 million for the first year.', // an amount
      'Adoption reached 12% of wards, and the budget was €1.5 million for the first year.', // a currency
      'The new protocol is not effective for adults.', // a negation
    ]) {
      const { result, judged: calls } = await check(sentence);
      assert.equal(calls, 1, sentence);
      assert.equal(result.method, 'model', sentence);
      assert.equal(result.verdict, 'unsupported');
    }
  });

  it('says which figure disagrees', () => {
    assert.equal(
      figuresDisagree('It took 700 hours.', 'It took 7 hours.', 'It took 7 hours.'),
      'the figure 700 hour is not in the source',
    );
    assert.equal(figuresDisagree('Waits fell by 30 minutes.', source, source), undefined);
    assert.equal(
      figuresDisagree('Adoption reached 12 wards.', 'Adoption reached 12% of wards.', ''),
      undefined,
      'a bare number may be the same fact as a percentage in the source',
    );
    assert.match(
      figuresDisagree('Adoption reached 12%.', 'Adoption reached 12 wards.', '') ?? '',
      /12 % is not in the source/,
    );
  });
});
