// Resuming a Deep Research run from its checkpoint, as a server does when the process running it died: the first
// run is cut off mid-cycle (its packets so far are what a store kept), the second goes on from the last checkpoint.
// Both run against the scripted research model over real HTTP, with the real web_search and open_url tools.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { packetsOfType } from '@toolbus/core/testing';
import type { Packet } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { checkPacketStream } from './check-packet-stream.ts';
import { type DeepResearchCheckpoint, parseDeepResearchCheckpoint } from './deep-research-checkpoint.ts';
import { resumedNote, runDeepResearch } from './run-deep-research.ts';
import { type ResearchWorld, startResearchWorld } from './testing/index.ts';

const solar = 'Research solar panels';
const wind = 'Research wind turbines';

describe('runDeepResearch resumed from a checkpoint', () => {
  let world: ResearchWorld;
  before(async () => {
    world = await startResearchWorld({ delayMs: 50 });
  });
  after(() => world.close());
  const base = () => ({
    ...world.planFirstRun('How do renewables compare?'),
    limits: { agentTimeoutMs: 20_000 },
  });

  /**
   * Runs until `dies` says the process dies at a packet: the packets up to it are what a store kept, the
   * checkpoints saved until then are the last ones (stored as JSON, read back and parsed as a server does).
   */
  async function runUntilDeath(dies: (packet: Packet, seen: readonly Packet[]) => boolean) {
    const controller = new AbortController();
    const checkpoints: DeepResearchCheckpoint[] = [];
    const turn = runDeepResearch({
      ...base(),
      signal: controller.signal,
      onCheckpoint: async (checkpoint) => {
        const stored = parseDeepResearchCheckpoint(JSON.parse(JSON.stringify(checkpoint)));
        assert.ok(stored, 'a checkpoint reads back as one');
        checkpoints.push(stored);
      },
    });
    const kept: Packet[] = [];
    let dead = false;
    for await (const packet of turn) {
      if (dead) continue;
      kept.push(packet);
      if (dies(packet, kept)) {
        dead = true;
        // Nothing after this packet reached the store; the aborted run's own end is discarded with it.
        controller.abort();
      }
    }
    await turn.result;
    assert.ok(dead, 'the run reached the point where it dies');
    return { kept, checkpoints };
  }

  async function resume(checkpoint: DeepResearchCheckpoint | undefined, packets: readonly Packet[]) {
    const turn = runDeepResearch({
      ...base(),
      resume: { packets, ...omitUndefined({ checkpoint }) },
    });
    const resumed: Packet[] = [];
    for await (const packet of turn) resumed.push(packet);
    return { resumed, result: await turn.result };
  }

  const agentRequests = (from: number, task: string) =>
    world.server.requests
      .slice(from)
      .filter(
        (request) =>
          request.messages.some(
            (message) => message.role === 'system' && message.text.includes('research agent:'),
          ) && request.messages.some((message) => message.role === 'user' && message.text === task),
      ).length;

  it('killed mid-cycle: the completed cycle is kept, the one in progress runs again, one report, one numbering', async () => {
    world.script = { tasks: [solar, wind], sequential: true };
    world.unsupportedClaim = undefined;
    // Dies while the second cycle's agent has a search in flight: its section and its tool call are open.
    const { kept, checkpoints } = await runUntilDeath(
      (packet, seen) =>
        packet.obj.type === 'tool-start' &&
        packet.placement.path?.length === 1 &&
        packetsOfType(seen, 'research-agent-start').some(
          (start) => start.obj.task === wind && start.placement.turn === packet.placement.turn,
        ),
    );
    assert.deepEqual(
      checkpoints.map((checkpoint) => checkpoint.cycles),
      [0, 1],
      'after the plan and after the first cycle',
    );
    const last = checkpoints.at(-1) as DeepResearchCheckpoint;
    assert.deepEqual(
      last.agents.map((agent) => [agent.task, agent.status]),
      [[solar, 'completed']],
    );
    assert.ok(last.documents.length > 0);
    assert.deepEqual(
      last.documents.map((document) => document.citationNumber),
      last.documents.map((_, index) => index + 1),
    );
    assert.equal(last.researchDone, false);

    const requestsBefore = world.server.requests.length;
    const { resumed, result } = await resume(last, kept);
    assert.equal(result.error, undefined, result.error?.message);
    assert.equal(result.stopReason, 'finished');
    const whole = [...kept, ...resumed];
    assert.deepEqual(
      checkPacketStream(whole),
      [],
      'the stored and the resumed packets make one valid stream',
    );

    // The resumed packets close what the dead run left open, before anything else: the search (with its aborted
    // tool-end: every call gets one) and the agent.
    const closing = resumed
      .slice(0, 5)
      .map((packet) => [packet.obj.type, packet.placement.path?.length ?? 0]);
    assert.deepEqual(closing, [
      ['error', 1],
      ['tool-end', 1],
      ['section-end', 1],
      ['error', 0],
      ['section-end', 0],
    ]);
    // Then the note, as reasoning of its own step.
    const note = packetsOfType(resumed, 'reasoning-delta').find((packet) => !packet.placement.path)?.obj
      .reasoning;
    assert.equal(note, resumedNote(last));
    assert.match(
      note ?? '',
      /1 completed research cycle are kept; the cycle that was in progress runs again/,
    );

    // Nothing done before the death is done again: no plan, no first agent; the second agent runs again.
    assert.equal(packetsOfType(whole, 'research-plan-start').length, 1);
    assert.deepEqual(
      packetsOfType(whole, 'research-agent-start').map((packet) => packet.obj.task),
      [solar, wind, wind],
    );
    assert.equal(
      agentRequests(requestsBefore, solar),
      0,
      'the completed agent made no request after the resume',
    );
    assert.ok(agentRequests(requestsBefore, wind) > 0);
    const planRequests = world.server.requests
      .slice(requestsBefore)
      .filter((request) => request.messages.some((message) => message.text.includes('research planner')));
    assert.equal(planRequests.length, 0);

    // One report, ending the stream; its citations continue the first cycle's numbering.
    assert.equal(packetsOfType(whole, 'message-start').filter((packet) => !packet.placement.path).length, 1);
    assert.deepEqual(whole.at(-1)?.obj, { type: 'stop', reason: 'finished' });
    assert.equal(packetsOfType(whole, 'stop').length, 1);
    assert.deepEqual(
      result.agents.map((agent) => [agent.task, agent.status]),
      [
        [solar, 'completed'],
        [wind, 'completed'],
      ],
    );
    assert.ok(result.cycles >= 2);
    const numbers = [...result.documents.keys()];
    assert.deepEqual(
      numbers,
      numbers.map((_, index) => index + 1),
    );
    for (const document of last.documents) {
      assert.equal(result.documents.get(document.citationNumber)?.id, document.id, 'numbers kept');
    }
    assert.ok(result.documents.size > last.documents.length, 'the second agent added sources');
    assert.match(result.answer, /solar panels history was measured carefully/);
    assert.match(result.answer, /wind turbines history was measured carefully/);
    const topTurns = whole.filter((packet) => !packet.placement.path).map((packet) => packet.placement.turn);
    assert.deepEqual(
      topTurns,
      [...topTurns].sort((a, b) => a - b),
      'top-level turns only go forward',
    );
  });

  it('killed while writing the report: the cut-off report is blanked and written once more', async () => {
    world.script = { tasks: [solar] };
    const { kept, checkpoints } = await runUntilDeath(
      (packet) => packet.obj.type === 'message-delta' && !packet.placement.path,
    );
    const last = checkpoints.at(-1) as DeepResearchCheckpoint;
    assert.equal(last.researchDone, true);
    const requestsBefore = world.server.requests.length;
    const { resumed, result } = await resume(last, kept);
    assert.equal(result.error, undefined, result.error?.message);
    const whole = [...kept, ...resumed];
    assert.deepEqual(checkPacketStream(whole), []);
    const reportAt = packetsOfType(kept, 'message-start').at(-1)?.placement;
    assert.deepEqual(resumed[0], {
      placement: reportAt,
      modelIndex: 0,
      obj: { type: 'message-replace', content: '' },
    });
    assert.match(resumedNote(last), /the report is written again/);
    assert.equal(agentRequests(requestsBefore, solar), 0, 'the research is not redone');
    // What a reader shows: the report text after the replacement, of the last report.
    const shown = packetsOfType(resumed, 'message-delta')
      .filter((packet) => !packet.placement.path)
      .map((packet) => packet.obj.content)
      .join('');
    assert.equal(shown, result.answer);
    assert.match(result.answer, /solar panels history was measured carefully/);
  });

  it('killed before the plan was written: no checkpoint, the run starts again after the closed stream', async () => {
    world.script = { tasks: [solar] };
    const { kept, checkpoints } = await runUntilDeath((packet) => packet.obj.type === 'research-plan-delta');
    assert.deepEqual(checkpoints, []);
    const { resumed, result } = await resume(undefined, kept);
    assert.equal(result.error, undefined, result.error?.message);
    const whole = [...kept, ...resumed];
    assert.deepEqual(checkPacketStream(whole), []);
    assert.equal(
      packetsOfType(whole, 'research-plan-start').length,
      2,
      'the cut-off plan, then the whole one',
    );
    assert.equal(result.plan, '1. Gather sources\n2. Compare them\n3. Summarise');
    assert.match(resumedNote(undefined), /starts again from the beginning/);
    assert.equal(packetsOfType(whole, 'stop').length, 1);
  });

  it('a run that had ended its stream (died before its end was recorded) runs nothing again and adds nothing', async () => {
    world.script = { tasks: [solar] };
    const checkpoints: DeepResearchCheckpoint[] = [];
    const first = runDeepResearch({
      ...base(),
      onCheckpoint: async (checkpoint) => void checkpoints.push(checkpoint),
    });
    const packets: Packet[] = [];
    for await (const packet of first) packets.push(packet);
    const done = await first.result;
    assert.equal(done.stopReason, 'finished');
    const requestsBefore = world.server.requests.length;
    const { resumed, result } = await resume(checkpoints.at(-1), packets);
    assert.deepEqual(resumed, []);
    assert.equal(world.server.requests.length, requestsBefore, 'no model call');
    assert.equal(result.stopReason, 'finished');
    assert.equal(result.answer, done.answer);
    assert.deepEqual(result.messages, [{ role: 'assistant', content: done.answer }]);
    assert.equal(result.plan, done.plan);
  });

  it('a stored value that is not a checkpoint of this version is refused', () => {
    assert.equal(parseDeepResearchCheckpoint(undefined), undefined);
    assert.equal(parseDeepResearchCheckpoint({ version: 2 }), undefined);
    assert.equal(parseDeepResearchCheckpoint('{"version":1}'), undefined);
  });
});
