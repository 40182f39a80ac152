import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Packet, PacketObject, Placement } from '@toolbus/spec';
import { TerminalRenderer } from './terminal-renderer.ts';

const at = (placement: Placement, obj: PacketObject): Packet => ({ placement, modelIndex: 0, obj });

describe('TerminalRenderer: the coding agent', () => {
  it('draws the agent and one line per bash command, marked when it ends (failures and timeouts say so)', () => {
    let output = '';
    const renderer = new TerminalRenderer({
      write: (text) => (output += text),
      interactive: false,
      color: false,
    });
    const agent = { turn: 0, tab: 0 };
    const first = { turn: 0, tab: 0, path: [{ turn: 0, tab: 0 }] };
    const second = { turn: 0, tab: 0, path: [{ turn: 0, tab: 1 }] };
    const third = { turn: 0, tab: 0, path: [{ turn: 1, tab: 0 }] };
    for (const packet of [
      at(agent, { type: 'coding-agent-start', query: 'Where is main?', repository: 'acme/app' }),
      at(first, { type: 'bash-start', toolCallId: 'a', command: 'rg -n main src' }),
      at(first, { type: 'bash-delta', toolCallId: 'a', stdout: 'src/app.ts:3:main()\n' }),
      at(first, { type: 'bash-delta', toolCallId: 'a', exitCode: 0, timedOut: false }),
      at(first, { type: 'section-end' }),
      at(second, { type: 'bash-start', toolCallId: 'b', command: 'cat missing.txt' }),
      at(second, { type: 'bash-delta', toolCallId: 'b', exitCode: 1, timedOut: false }),
      at(third, { type: 'bash-start', toolCallId: 'c', command: 'sleep 100\necho later' }),
      at(third, { type: 'bash-delta', toolCallId: 'c', exitCode: null, timedOut: true }),
      at(agent, { type: 'coding-agent-final', answer: 'In src/app.ts:3.' }),
      at(agent, { type: 'section-end' }),
    ]) {
      renderer.render(packet);
    }
    assert.deepEqual(output.trim().split('\n'), [
      '… Coding Agent — acme/app: Where is main?',
      '… $ — rg -n main src',
      '✓ $ — rg -n main src',
      '… $ — cat missing.txt',
      '✗ $ — cat missing.txt (exit 1)',
      '… $ — sleep 100...',
      '✗ $ — sleep 100... (timed out)',
      '✓ Coding Agent — acme/app: Where is main?',
    ]);
  });
});
