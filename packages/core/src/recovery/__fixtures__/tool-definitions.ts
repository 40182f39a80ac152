import type { ToolDefinition } from '@toolbus/spec';

/** Tools shared by the recovery tests: the catalogue's `get_weather` call plus tools to make ties. */
export const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' }, metric: { type: 'boolean' } },
    required: ['city'],
  },
};

export const timeTool: ToolDefinition = {
  name: 'get_time',
  description: 'Time in a zone',
  parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
};

/** A search tool: `queries` (both require it, so bare queries tie) plus an option of its own. */
function searchToolWith(name: string, description: string, option: Record<string, unknown>): ToolDefinition {
  return {
    name,
    description,
    parameters: {
      type: 'object',
      properties: { queries: { type: 'array', items: { type: 'string' } }, ...option },
      required: ['queries'],
    },
  };
}

export const searchTool = searchToolWith('internal_search', 'Search documents', {
  limit: { type: 'number' },
});

export const webSearchTool = searchToolWith('web_search', 'Search the web', { site: { type: 'string' } });

export const listFilesTool: ToolDefinition = {
  name: 'list_files',
  description: 'No parameters',
  parameters: { type: 'object', properties: {} },
};

export const tools: readonly ToolDefinition[] = [weatherTool, timeTool, searchTool, webSearchTool, listFilesTool];
