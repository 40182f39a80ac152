import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { collectTurn } from '@toolbus/core/testing';
import { checkPacketStream } from './check-packet-stream.ts';
import { runDeepResearch } from './run-deep-research.ts';
import { type ResearchWorld, startResearchWorld } from './testing/index.ts';

// The orchestrator's dispatch arrives with argument JSON that is not valid although nothing cut it off: a repair
// would dispatch a task it never wrote ("Research wind tur"). It is told, and dispatches again.

describe('a malformed research_agent dispatch', () => {
  let world: ResearchWorld;
  before(async () => {
    world = await startResearchWorld({ delayMs: 20 });
  });
  after(() => world.close());

  it('is not run on a repaired task; the orchestrator reads why and dispatches it whole', async () => {
    world.script = {
      tasks: ['Research solar panels', 'Research wind turbines'],
      malformedFirstDispatch: true,
    };
    const requestsBefore = world.server.requests.length;
    const { packets, result } = await collectTurn(
      runDeepResearch({ ...world.planFirstRun('Compare solar and wind'), checkCitations: false }),
    );
    assert.equal(result.error, undefined, result.error?.message);
    assert.deepEqual(
      result.agents.map((agent) => agent.task),
      ['Research solar panels', 'Research wind turbines'],
      'no agent ran on the repaired task',
    );
    const errors = packets.filter(
      (packet) => packet.obj.type === 'error' && packet.obj.code === 'tool_call_malformed',
    );
    assert.equal(errors.length, 1);
    const told = world.server.requests
      .slice(requestsBefore)
      .flatMap((request) => request.messages.flatMap((message) => message.toolResults))
      .find((entry) => /was not run: its arguments were not valid JSON/.test(entry.content));
    assert.ok(told, 'the orchestrator was told what was wrong');
    assert.deepEqual(checkPacketStream(packets), []);
  });
});
