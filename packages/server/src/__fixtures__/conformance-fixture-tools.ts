// The fixture tools the MCP conformance suite's server scenarios call (`test_simple_text`, …), as a real MCP server
// on loopback offers them. A persona holding these tools lets the suite test `/v1/mcp/{personaId}` itself: how the
// endpoint lists, calls and reports them.
import { setTimeout as delay } from 'node:timers/promises';
import type { LoopbackTool } from '@toolbus/mcp/testing';

const onePixelPng =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const silentWav = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';
const noArguments = { type: 'object' as const, properties: {} };

/** The suite's fixture tools (names and results as its scenarios expect them). */
export const conformanceFixtureTools: readonly LoopbackTool[] = [
  {
    tool: { name: 'test_simple_text', description: 'Returns simple text', inputSchema: noArguments },
    call: () => ({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] }),
  },
  {
    tool: { name: 'test_image_content', description: 'Returns an image', inputSchema: noArguments },
    call: () => ({ content: [{ type: 'image', data: onePixelPng, mimeType: 'image/png' }] }),
  },
  {
    tool: { name: 'test_audio_content', description: 'Returns audio', inputSchema: noArguments },
    call: () => ({ content: [{ type: 'audio', data: silentWav, mimeType: 'audio/wav' }] }),
  },
  {
    tool: { name: 'test_embedded_resource', description: 'Returns a resource', inputSchema: noArguments },
    call: () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  },
  {
    tool: { name: 'test_multiple_content_types', description: 'Returns mixed content', inputSchema: noArguments },
    call: () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: onePixelPng, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data"}' },
        },
      ],
    }),
  },
  {
    tool: { name: 'test_error_handling', description: 'Always fails', inputSchema: noArguments },
    call: () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }),
  },
  {
    // Three log messages at info level, 50 ms apart, on the call's stream; and a debug one the level filters out
    // for a caller that asked for info.
    tool: { name: 'test_tool_with_logging', description: 'Logs while it works', inputSchema: noArguments },
    call: async (_args, context) => {
      await context.log('info', 'Tool execution started');
      await delay(50);
      await context.log('debug', 'Tool internals');
      await context.log('info', 'Tool processing data');
      await delay(50);
      await context.log('info', 'Tool execution completed');
      return { content: [{ type: 'text', text: 'Tool with logging executed successfully' }] };
    },
  },
  {
    // server-stateless calls it without a log level: a 2026-07-28 request that names none gets no log message.
    tool: { name: 'test_logging_tool', description: 'Logs once', inputSchema: noArguments },
    call: async (_args, context) => {
      await context.log('info', 'logged');
      return { content: [{ type: 'text', text: 'logged once' }] };
    },
  },
  {
    tool: { name: 'test_tool_with_progress', description: 'Reports progress', inputSchema: noArguments },
    call: async (_args, context) => {
      await context.progress(0, 100);
      await delay(50);
      await context.progress(50, 100);
      await delay(50);
      await context.progress(100, 100);
      return { content: [{ type: 'text', text: 'Tool with progress executed successfully' }] };
    },
  },
  {
    // A parameter mirrored into an `Mcp-Param-Region` header (SEP-2243), which the endpoint must check.
    tool: {
      name: 'test_custom_header',
      description: 'Echoes its region',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
        required: ['region'],
      },
    },
    call: (args) => ({ content: [{ type: 'text', text: `region ${String(args.region)}` }] }),
  },
  {
    tool: {
      name: 'json_schema_2020_12_tool',
      description: 'A tool whose schema uses JSON Schema 2020-12 features',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: {
            type: 'object',
            properties: { street: { type: 'string' }, city: { type: 'string' } },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
        },
        additionalProperties: false,
      },
    },
    call: (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
  },
];
