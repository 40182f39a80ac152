import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Packet, PacketObject, Placement } from '@toolbus/spec';
import { checkPacketStream } from './check-packet-stream.ts';

const at = (placement: Placement, obj: PacketObject): Packet => ({ placement, modelIndex: 0, obj });
const agent = { turn: 1, tab: 0 };
const inner = { turn: 1, tab: 0, path: [{ turn: 0, tab: 1 }] };

test('a well-nested stream passes', () => {
  assert.deepEqual(
    checkPacketStream([
      at(agent, { type: 'research-agent-start', task: 't' }),
      at(inner, { type: 'tool-start', toolCallId: 'c', toolName: 'web_search', displayName: 'Web Search' }),
      at(inner, { type: 'section-end' }),
      at(agent, { type: 'intermediate-report-start' }),
      at(agent, { type: 'section-end' }),
      at({ turn: 2, tab: 0 }, { type: 'stop', reason: 'finished' }),
    ]),
    [],
  );
});

test('nesting outside an open section, writes after a section ended, unclosed sections and a misplaced stop are found', () => {
  const problems = checkPacketStream([
    at(inner, { type: 'reasoning-start' }),
    at({ turn: 1, tab: 1 }, { type: 'research-agent-start', task: 't' }),
    at({ turn: 1, tab: 1 }, { type: 'section-end' }),
    at({ turn: 1, tab: 1, path: [{ turn: 3, tab: 0 }] }, { type: 'heartbeat' }),
    at({ turn: 0, tab: 0 }, { type: 'stop', reason: 'finished' }),
    at({ turn: 2, tab: 0 }, { type: 'tool-start', toolCallId: 'x', toolName: 'a', displayName: 'A' }),
  ]);
  assert.equal(problems.length, 8, problems.join('\n'));
  assert.match(problems.join('\n'), /nested under 1\.0, which has no open section/);
  assert.match(problems.join('\n'), /arrives after its section 1\.1 ended/);
  assert.match(problems.join('\n'), /top-level turn went back/);
  assert.match(problems.join('\n'), /stop must be the last packet/);
  assert.match(problems.join('\n'), /2\.0: started but never got section-end/);
  assert.match(problems.join('\n'), /1\.0\/0\.1: started but never got reasoning-end/);
});
