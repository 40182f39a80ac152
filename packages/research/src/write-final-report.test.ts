import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { collectTurn } from '@toolbus/core/testing';
import { checkPacketStream } from './check-packet-stream.ts';
import { runDeepResearch } from './run-deep-research.ts';
import { type ResearchWorld, startResearchWorld } from './testing/index.ts';

// A dropped connection while the final report is written costs one more report step, not the whole run.

describe('the final report step, when its stream drops', () => {
  let world: ResearchWorld;
  before(async () => {
    world = await startResearchWorld({ delayMs: 20 });
  });
  after(() => world.close());

  async function research() {
    world.script = { tasks: ['Research solar panels'] };
    return collectTurn(
      runDeepResearch({ ...world.planFirstRun('How good is solar?'), checkCitations: false }),
    );
  }

  it('is written again from the start once, and the half shown before the drop is withdrawn', async () => {
    world.dropReports = 1;
    const { packets, result } = await research();
    assert.equal(result.error, undefined, result.error?.message);
    assert.equal(result.stopReason, 'finished');
    assert.match(result.answer, /solar panels history was measured carefully by the survey in 2026 \[1\]\./);
    const replaced = packets.filter((packet) => packet.obj.type === 'message-replace');
    assert.deepEqual(
      replaced.map((packet) => packet.obj),
      [{ type: 'message-replace', content: '' }],
    );
    // The second attempt writes at the turn after the withdrawn one, and the stream stays well formed.
    const starts = packets.filter((packet) => packet.obj.type === 'message-start');
    assert.equal(starts.at(-1)?.placement.turn, (replaced[0]?.placement.turn ?? -1) + 1);
    assert.deepEqual(checkPacketStream(packets), []);
  });

  it('fails the run when the stream drops a second time', async () => {
    world.dropReports = 2;
    const { result } = await research();
    assert.equal(world.dropReports, 0, 'two report steps were tried');
    assert.equal(result.error?.code, 'model_stream_error');
  });
});
