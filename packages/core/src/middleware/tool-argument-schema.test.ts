import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolDefinition } from '@toolbus/spec';
import { toolArgumentSchemaOf } from './tool-argument-schema.ts';

// A definition built afresh, as the gateway builds one from each request's body.
function weatherTool(): ToolDefinition {
  return {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: JSON.parse(
      '{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}',
    ) as ToolDefinition['parameters'],
  };
}

describe('toolArgumentSchemaOf', () => {
  it('validates arguments against the JSON schema', () => {
    const schema = toolArgumentSchemaOf(weatherTool());
    assert.ok(schema);
    assert.equal(schema.safeParse({ city: 'Paris' }).success, true);
    assert.equal(schema.safeParse({ town: 'Paris' }).success, false);
  });

  it('compiles a schema once for definitions built afresh with the same schema', () => {
    const first = toolArgumentSchemaOf(weatherTool());
    const second = toolArgumentSchemaOf(weatherTool());
    assert.ok(first);
    assert.equal(second, first);
  });

  it('keeps a bounded number of schemas by text, the least recently used dropped first', () => {
    const kept = toolArgumentSchemaOf(weatherTool());
    const dropped = toolArgumentSchemaOf({
      ...weatherTool(),
      parameters: { type: 'object', title: 'first' },
    });
    for (let index = 0; index < 256; index++) {
      toolArgumentSchemaOf({ ...weatherTool(), parameters: { type: 'object', title: `other ${index}` } });
      // The weather schema is used all along, so it stays.
      if (index % 64 === 0) assert.equal(toolArgumentSchemaOf(weatherTool()), kept);
    }
    assert.equal(toolArgumentSchemaOf(weatherTool()), kept);
    const again = toolArgumentSchemaOf({ ...weatherTool(), parameters: { type: 'object', title: 'first' } });
    assert.notEqual(again, dropped);
  });

  it('validates nothing for a schema zod cannot read', () => {
    const tool = {
      ...weatherTool(),
      parameters: { type: 'object', properties: { city: { $ref: '#/nowhere' } } },
    };
    assert.equal(toolArgumentSchemaOf(tool as ToolDefinition), undefined);
  });
});
