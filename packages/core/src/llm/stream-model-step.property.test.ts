import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { ScriptedModelServer, ScriptedStep } from '../testing/index.ts';
import { splitTextAt, startScriptedModelServer } from '../testing/index.ts';
import {
  collectEvents,
  lastEvent,
  scriptedModel,
  scriptedProviders,
  textOf,
} from './__fixtures__/scripted-providers.ts';
import { streamModelStep } from './stream-model-step.ts';

// Arbitrary text and arbitrary tool arguments, cut at arbitrary positions, through the real provider packages.
for (const provider of scriptedProviders) {
  describe(`streamModelStep over ${provider}, any chunking`, () => {
    let server: ScriptedModelServer;
    const pending: ScriptedStep[][] = [];
    before(async () => {
      server = await startScriptedModelServer({
        handler: () => pending.shift() ?? [{ type: 'http-error', status: 418 }],
      });
    });
    after(() => server.close());

    it('reassembles text and every call’s arguments exactly', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.string({ minLength: 1, maxLength: 80 }),
          fc.array(
            fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
            {
              minLength: 1,
              maxLength: 3,
            },
          ),
          fc.array(fc.nat({ max: 200 }), { maxLength: 10 }),
          async (text, argumentObjects, cuts) => {
            const steps: ScriptedStep[] = splitTextAt(text, cuts).map((piece) => ({
              type: 'text',
              text: piece,
            }));
            argumentObjects.forEach((argumentObject, index) => {
              const serialized = JSON.stringify(argumentObject);
              steps.push({ type: 'tool-call-start', index, id: `call_${index}`, name: 'tool' });
              for (const piece of splitTextAt(serialized, cuts)) {
                steps.push({ type: 'tool-call-delta', index, argumentsDelta: piece });
              }
            });
            pending.push(steps);
            const events = await collectEvents(
              streamModelStep({
                model: scriptedModel({ provider, serverUrl: server.url }),
                messages: [{ role: 'user', content: 'go' }],
                tools: [{ name: 'tool', description: 'd', parameters: { type: 'object' } }],
              }),
            );
            assert.equal(lastEvent(events).type, 'finish');
            assert.equal(textOf(events), text);
            const ends = events.filter((event) => event.type === 'tool-call-end');
            assert.deepEqual(
              ends.map((end) => JSON.parse(end.rawArguments)),
              argumentObjects.map((argumentObject) => JSON.parse(JSON.stringify(argumentObject))),
            );
          },
        ),
        { numRuns: 40 },
      );
    });
  });
}
