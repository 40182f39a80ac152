import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Packet, PacketObject } from '@toolbus/spec';
import { TerminalRenderer } from './terminal-renderer.ts';

const packet = (obj: PacketObject): Packet => ({ placement: { turn: 0, tab: 0 }, modelIndex: 0, obj });
/** A renderer writing plain text (no terminal, no colour) into a string `output()` reads. */
function plainRenderer(): { renderer: TerminalRenderer; output: () => string } {
  let written = '';
  const renderer = new TerminalRenderer({
    write: (text) => (written += text),
    interactive: false,
    color: false,
  });
  return { renderer, output: () => written };
}

const retracted: PacketObject[] = [
  { type: 'message-start' },
  { type: 'message-delta', content: 'Let me look.\n' },
  { type: 'message-delta', content: '{"name": "internal_search"}' },
  { type: 'message-replace', content: 'Let me look.' },
  { type: 'stop', reason: 'finished' },
];

describe('TerminalRenderer and message-replace', () => {
  it('on a terminal, erases the message it drew and draws the replacement', () => {
    const writes: string[] = [];
    const renderer = new TerminalRenderer({
      write: (text) => writes.push(text),
      interactive: true,
      color: false,
      columns: 80,
    });
    for (const obj of retracted) renderer.render(packet(obj));
    const eraseAt = writes.indexOf('\u001b[1A\r\u001b[J');
    assert.ok(eraseAt > 0, 'moved up over the two rows of the message and cleared them');
    assert.deepEqual(writes.slice(eraseAt + 1), ['Let me look.', '\n']);
  });

  it('without a terminal, writes a message once it is settled, so a retracted call never reaches the output', () => {
    const { renderer, output } = plainRenderer();
    for (const obj of retracted.slice(0, 3)) renderer.render(packet(obj));
    assert.equal(output(), '', 'held while it may still change');
    for (const obj of retracted.slice(3)) renderer.render(packet(obj));
    assert.equal(output(), 'Let me look.\n');
  });
});

describe('TerminalRenderer and code runs', () => {
  it('a finished run_python line says what the code made or printed, not its source again', () => {
    const { renderer, output } = plainRenderer();
    const at = { turn: 1, tab: 0 };
    const render = (obj: PacketObject, placement = at) => renderer.render({ placement, modelIndex: 0, obj });
    render({
      type: 'tool-start',
      toolCallId: 'p1',
      toolName: 'run_python',
      displayName: 'Code Interpreter',
      arguments: { code: 'plot()' },
    });
    render({ type: 'python-delta', toolCallId: 'p1', stdout: 'drawing\nsaved\n' });
    render({
      type: 'python-delta',
      toolCallId: 'p1',
      files: [{ fileId: 'f1', name: 'chart.png', mediaType: 'image/png' }],
    });
    render({ type: 'python-delta', toolCallId: 'p1', stdout: 'done\n' });
    render({ type: 'section-end' });
    const start = { turn: 2, tab: 0 };
    render(
      {
        type: 'tool-start',
        toolCallId: 'p2',
        toolName: 'run_python',
        displayName: 'Code Interpreter',
        arguments: { code: 'print(6*7)' },
      },
      start,
    );
    render({ type: 'python-delta', toolCallId: 'p2', stdout: '42\n' }, start);
    render({ type: 'section-end' }, start);
    assert.match(output(), /✓ Code Interpreter — made chart\.png\n/);
    assert.match(output(), /✓ Code Interpreter — 42\n/);
  });
});

describe('TerminalRenderer and tool-end', () => {
  it('draws each call as its tool-end says: ✓, ✗ with the message, a line for a call that never started', () => {
    const { renderer, output } = plainRenderer();
    const render = (tab: number, obj: PacketObject) =>
      renderer.render({ placement: { turn: 1, tab }, modelIndex: 0, obj });
    const start = (id: string): PacketObject => ({
      type: 'tool-start',
      toolCallId: id,
      toolName: 'lookup',
      displayName: 'Lookup',
      arguments: { query: id },
    });
    render(0, start('ok'));
    render(1, start('refused'));
    render(0, {
      type: 'tool-end',
      toolCallId: 'ok',
      toolName: 'lookup',
      status: 'success',
      result: 'x',
      durationMs: 3,
    });
    render(0, { type: 'section-end' });
    // A refusal of the model's arguments streams no error packet: the tool-end alone says the call failed.
    render(1, {
      type: 'tool-end',
      toolCallId: 'refused',
      toolName: 'lookup',
      status: 'call-error',
      error: { code: 'not_found', message: 'No fact named "refused".' },
      durationMs: 1,
    });
    render(1, { type: 'section-end' });
    render(2, {
      type: 'tool-end',
      toolCallId: 'ghost',
      toolName: 'no_such_tool',
      status: 'unknown-tool',
      error: { code: 'unknown_tool', message: 'There is no tool named "no_such_tool".' },
      durationMs: 0,
    });
    render(3, {
      type: 'tool-end',
      toolCallId: 'twin',
      toolName: 'lookup',
      status: 'merged',
      result: 'merged into ok',
      mergedInto: 'ok',
      durationMs: 0,
    });
    assert.match(output(), /✓ Lookup — \{"query":"ok"\}\n/);
    assert.match(output(), /✗ Lookup — No fact named "refused"\.\n/);
    assert.match(output(), /✗ no_such_tool — There is no tool named "no_such_tool"\.\n/);
    assert.doesNotMatch(output(), /twin|merged/);
  });

  it('a cause only the terminal may show wins over the message the model was given', () => {
    const { renderer, output } = plainRenderer();
    const at = { turn: 1, tab: 0 };
    renderer.render({
      placement: at,
      modelIndex: 0,
      obj: { type: 'tool-start', toolCallId: 'c', toolName: 'lookup', displayName: 'Lookup' },
    });
    renderer.noteToolFailure('c', 'ENOENT: /srv/facts.db');
    renderer.render({
      placement: at,
      modelIndex: 0,
      obj: {
        type: 'tool-end',
        toolCallId: 'c',
        toolName: 'lookup',
        status: 'unexpected-error',
        error: { code: 'unexpected_error', message: '"lookup" stopped with an unexpected internal error.' },
        durationMs: 2,
      },
    });
    assert.match(output(), /✗ Lookup — ENOENT: \/srv\/facts\.db\n/);
  });
});
