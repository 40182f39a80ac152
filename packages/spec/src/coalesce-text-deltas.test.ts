import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { omitUndefined } from '@toolbus/spec';
import { coalesceTextDeltas } from './coalesce-text-deltas.ts';
import type { Packet, PacketObject } from './packet.ts';
import type { Placement } from './placement.ts';

const at = (turn: number, tab = 0, path?: Placement['path']): Placement => ({
  turn,
  tab,
  ...omitUndefined({ path }),
});
const packet = (obj: PacketObject, placement = at(0), modelIndex = 0): Packet => ({
  placement,
  modelIndex,
  obj,
});
const delta = (content: string, placement = at(0), modelIndex = 0) =>
  packet({ type: 'message-delta', content }, placement, modelIndex);

describe('coalesceTextDeltas', () => {
  it('joins a run of message deltas into one packet with the whole text', () => {
    const joined = coalesceTextDeltas([delta('Hel'), delta('lo, '), delta('world')]);
    assert.deepEqual(joined, [delta('Hello, world')]);
  });

  it('keeps other packets and the order, and never joins across them', () => {
    const start = packet({ type: 'message-start' });
    const end = packet({ type: 'section-end' });
    const joined = coalesceTextDeltas([start, delta('a'), delta('b'), end, delta('c')]);
    assert.deepEqual(joined, [start, delta('ab'), end, delta('c')]);
  });

  it('joins reasoning, research plan and report deltas in their own fields, not across types', () => {
    const reasoning = (text: string) => packet({ type: 'reasoning-delta', reasoning: text });
    const plan = (text: string) => packet({ type: 'research-plan-delta', content: text });
    const report = (text: string) => packet({ type: 'intermediate-report-delta', content: text });
    const joined = coalesceTextDeltas([
      reasoning('th'),
      reasoning('ink'),
      delta('x'),
      plan('1. '),
      plan('a'),
      report('r'),
      report('s'),
    ]);
    assert.deepEqual(joined, [reasoning('think'), delta('x'), plan('1. a'), report('rs')]);
  });

  it('does not join deltas of different placements (parallel agents) or different models', () => {
    const nested = at(1, 0, [{ turn: 2, tab: 1 }]);
    const other = at(1, 0, [{ turn: 2, tab: 0 }]);
    const input = [delta('a', nested), delta('b', other), delta('c', other), delta('d', other, 1)];
    assert.deepEqual(coalesceTextDeltas(input), [
      delta('a', nested),
      delta('bc', other),
      delta('d', other, 1),
    ]);
  });

  it('leaves packets that are not text deltas untouched, even when repeated', () => {
    const args = packet({
      type: 'tool-argument-delta',
      toolCallId: 'c1',
      toolName: 'run_python',
      argumentDeltas: { code: 'pri' },
    });
    assert.deepEqual(coalesceTextDeltas([args, args]), [args, args]);
  });

  it('preserves each stream of text under any split (seeded random sequences)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const placements = [at(0), at(1), at(1, 1)];
    for (let round = 0; round < 200; round += 1) {
      const input: Packet[] = [];
      for (let index = 0; index < 30; index += 1) {
        const placement = placements[Math.floor(random() * placements.length)] as Placement;
        const roll = random();
        if (roll < 0.6) input.push(delta(String.fromCharCode(97 + Math.floor(random() * 26)), placement));
        else if (roll < 0.8) input.push(packet({ type: 'reasoning-delta', reasoning: 'r' }, placement));
        else input.push(packet({ type: 'section-end' }, placement));
      }
      const output = coalesceTextDeltas(input);
      const text = (packets: readonly Packet[]) =>
        packets.map((item) => `${item.placement.turn}.${item.placement.tab}:${JSON.stringify(item.obj)}`);
      // The others stay in order, every text is the same once appended, and no two neighbours could be joined.
      const others = (packets: readonly Packet[]) =>
        text(packets.filter((item) => item.obj.type === 'section-end'));
      assert.deepEqual(others(output), others(input));
      const appended = (packets: readonly Packet[]) => {
        const streams = new Map<string, string>();
        for (const item of packets) {
          const key = `${item.placement.turn}.${item.placement.tab}:${item.obj.type}`;
          const piece =
            'content' in item.obj ? item.obj.content : 'reasoning' in item.obj ? item.obj.reasoning : '';
          streams.set(key, (streams.get(key) ?? '') + piece);
        }
        return streams;
      };
      assert.deepEqual(appended(output), appended(input));
      for (let index = 1; index < output.length; index += 1) {
        const [before, after] = [output[index - 1] as Packet, output[index] as Packet];
        const joinable =
          before.obj.type === after.obj.type &&
          before.obj.type !== 'section-end' &&
          before.placement.turn === after.placement.turn &&
          before.placement.tab === after.placement.tab;
        assert.equal(joinable, false, `neighbours ${index - 1} and ${index} should have been joined`);
      }
    }
  });
});
