import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { omitUndefined, ToolCallError } from '@toolbus/spec';
import * as z from 'zod';
import { Emitter } from '../emitter/emitter.ts';
import { runToolCalls } from '../runner/run-tool-calls.ts';
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

describe('defineTool passErrorMessages', () => {
  const failing = (passErrorMessages?: boolean) =>
    defineTool({
      name: 'orders',
      description: 'Orders',
      parameters: z.object({}),
      ...omitUndefined({ passErrorMessages }),
      run: () => {
        throw new Error('backend returned 503');
      },
    });
  const run = (tool: ReturnType<typeof failing>) =>
    runToolCalls({
      calls: [{ id: 'c1', name: 'orders', arguments: {}, placement: { turn: 0, tab: 0 } }],
      tools: [tool],
    });

  it("with it, a plain error's message reaches the model as an execution error", async () => {
    const { outcomes } = await run(failing(true));
    assert.equal(outcomes[0]?.status, 'execution-error');
    assert.equal(outcomes[0]?.response.llmFacing, 'Tool failed with error: backend returned 503');
  });

  it('without it, the model reads only that the tool stopped with an internal error', async () => {
    const { outcomes } = await run(failing());
    assert.equal(outcomes[0]?.status, 'unexpected-error');
    assert.doesNotMatch(outcomes[0]?.response.llmFacing ?? '', /503/);
  });

  it('typed errors pass unchanged with it on', async () => {
    const tool = defineTool({
      name: 'orders',
      description: 'Orders',
      parameters: z.object({}),
      passErrorMessages: true,
      run: () => {
        throw new ToolCallError({
          code: 'not_found',
          message: 'no order',
          modelMessage: 'There is no order 7.',
        });
      },
    });
    const { outcomes } = await run(tool);
    assert.equal(outcomes[0]?.status, 'call-error');
    assert.equal(outcomes[0]?.response.llmFacing, 'Tool failed with error: There is no order 7.');
  });
});

test('the example call an invalid call is answered with is accepted by the tool itself', async () => {
  const tool = defineTool({
    name: 'plan_trip',
    description: 'Plans a trip',
    parameters: z.object({
      stops: z.array(z.string()).min(3),
      budget: z.number().max(0.5),
      nights: z.number().int().nullable(),
      rooms: z.array(z.object({ beds: z.number().int().optional(), view: z.string().optional() })),
      mode: z.union([z.literal('train'), z.literal('car')]),
    }),
    run: () => 'planned',
  });
  const at = { turn: 0, tab: 0 };
  const refused = await runToolCalls({
    calls: [{ id: 'c1', name: 'plan_trip', arguments: {}, placement: at }],
    tools: [tool],
  });
  const example = /Call it like this: (.*)$/s.exec(refused.outcomes[0]?.response.llmFacing ?? '')?.[1];
  assert.ok(example, 'the refusal shows an example call');
  const { arguments: args } = JSON.parse(example) as { arguments: Record<string, unknown> };
  const accepted = await runToolCalls({
    calls: [{ id: 'c2', name: 'plan_trip', arguments: args, placement: at }],
    tools: [tool],
  });
  assert.equal(accepted.outcomes[0]?.status, 'success', `the example ${example} was refused`);
});
