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

export const searchTool: ToolDefinition = {
  name: 'internal_search',
  description: 'Search documents',
  parameters: {
    type: 'object',
    properties: { queries: { type: 'array', items: { type: 'string' } }, limit: { type: 'number' } },
    required: ['queries'],
  },
};

export const webSearchTool: ToolDefinition = {
  name: 'web_search',
  description: 'Search the web',
  parameters: {
    type: 'object',
    properties: { queries: { type: 'array', items: { type: 'string' } }, site: { type: 'string' } },
    required: ['queries'],
  },
};

export const listFilesTool: ToolDefinition = {
  name: 'list_files',
  description: 'No parameters',
  parameters: { type: 'object', properties: {} },
};

export const tools: readonly ToolDefinition[] = [weatherTool, timeTool, searchTool, webSearchTool, listFilesTool];
