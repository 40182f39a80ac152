import type { JsonSchema, ToolDefinition } from '@toolbus/spec';

/** What recovery needs to know about one tool's parameter schema. */
export interface ToolSchemaInfo {
  readonly name: string;
  readonly required: readonly string[];
  readonly properties: ReadonlyMap<string, JsonSchema>;
}

/** Tool name → schema facts, built once per `toolDefs` array. */
export type ToolSchemaIndex = ReadonlyMap<string, ToolSchemaInfo>;

/**
 * Indexes tool definitions by name, tolerating malformed schemas (they just have no known properties). Not
 * cached: a caller may reuse and change one array between calls, and indexing a few dozen tools is cheap.
 */
export function indexToolDefinitions(toolDefs: readonly ToolDefinition[]): ToolSchemaIndex {
  const index = new Map<string, ToolSchemaInfo>();
  if (Array.isArray(toolDefs)) {
    for (const definition of toolDefs) {
      if (!definition || typeof definition.name !== 'string' || index.has(definition.name)) continue;
      const parameters: unknown = definition.parameters;
      const properties = new Map<string, JsonSchema>();
      let required: string[] = [];
      if (typeof parameters === 'object' && parameters !== null) {
        const schema = parameters as { properties?: unknown; required?: unknown };
        if (typeof schema.properties === 'object' && schema.properties !== null) {
          for (const [key, value] of Object.entries(schema.properties)) {
            properties.set(key, typeof value === 'object' && value !== null ? (value as JsonSchema) : {});
          }
        }
        if (Array.isArray(schema.required)) {
          required = schema.required.filter((item): item is string => typeof item === 'string');
        }
      }
      index.set(definition.name, { name: definition.name, required, properties });
    }
  }
  return index;
}
