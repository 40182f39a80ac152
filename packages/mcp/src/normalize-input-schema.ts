import type { JsonSchema } from '@toolbus/spec';

/**
 * Makes an MCP input schema acceptable to every provider: a missing or empty schema becomes an empty object schema,
 * and an object schema without `properties` (legal for zero-argument tools) gets an empty one, which Azure OpenAI
 * and others require.
 */
export function normalizeInputSchema(schema: JsonSchema | undefined): JsonSchema {
  if (schema === undefined || Object.keys(schema).length === 0) return { type: 'object', properties: {} };
  if (schema.type === 'object' && (typeof schema.properties !== 'object' || schema.properties === null)) {
    return { ...schema, properties: {} };
  }
  return schema;
}
