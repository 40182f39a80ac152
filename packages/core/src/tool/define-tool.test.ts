import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { Emitter } from '../emitter/emitter.ts';
import { defineTool } from './define-tool.ts';

test('the definition is the JSON schema of the zod schema, with properties always present', () => {
  const tool = defineTool({
    name: 'read_file',
    description: 'Reads a file',
    parameters: z.object({
      file_id: z.string().describe('the file'),
      start_char: z.number().int().default(0),
    }),
    run: () => 'x',
  });
  const definition = tool.definition();
  assert.equal(definition.name, 'read_file');
  assert.equal((definition.parameters as { type: string }).type, 'object');
  assert.deepEqual((definition.parameters as { required: string[] }).required, ['file_id']);
  assert.equal('$schema' in definition.parameters, false);
  const empty = defineTool({ name: 'noop', description: 'n', parameters: z.object({}), run: () => 'x' });
  assert.deepEqual((empty.definition().parameters as { properties: object }).properties, {});
});

test('names that some provider would reject are refused at definition time', () => {
  assert.throws(
    () => defineTool({ name: 'has space', description: '', parameters: z.object({}), run: () => '' }),
    /must match/,
  );
});

test('the default start packet names the call and its arguments', () => {
  const tool = defineTool({
    name: 't',
    description: 'd',
    displayName: 'Tee',
    parameters: z.object({}),
    run: () => '',
  });
  const packets: unknown[] = [];
  const emitter = new Emitter();
  const placement = { turn: 0, tab: 0 };
  tool.emitStart(
    placement,
    { ...toolEmitter(emitter, packets) },
    { id: 'c', name: 't', arguments: { a: 1 }, placement },
  );
  assert.deepEqual(packets, [
    { type: 'tool-start', toolCallId: 'c', toolName: 't', displayName: 'Tee', arguments: { a: 1 } },
  ]);
});

function toolEmitter(_emitter: Emitter, packets: unknown[]) {
  const placement = { turn: 0, tab: 0 };
  const self = {
    placement,
    closed: false,
    emit: (obj: unknown) => packets.push(obj),
    emitAt: (_placement: unknown, obj: unknown) => packets.push(obj),
    nested: () => self,
  };
  return self;
}
