import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpConnectionError } from './errors/mcp-connection-error.ts';
import { checkMcpClientMetadataUrl, mcpClientMetadataDocument } from './mcp-client-metadata-document.ts';

test('the document names itself by its URL, lists the callback and asks for no secret', () => {
  const document = mcpClientMetadataDocument({
    clientMetadataUrl: 'https://toolbus.example/oauth/client-metadata.json',
    redirectUris: ['https://toolbus.example/v1/mcp-oauth/callback'],
  });
  assert.deepEqual(document, {
    client_id: 'https://toolbus.example/oauth/client-metadata.json',
    client_name: 'toolbus',
    redirect_uris: ['https://toolbus.example/v1/mcp-oauth/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
});

test('a client id URL must be https with a path, no fragment and no credentials', () => {
  for (const [value, problem] of [
    ['http://toolbus.example/oauth/client.json', /must be https/],
    ['https://toolbus.example/', /needs a path/],
    ['https://toolbus.example', /needs a path/],
    ['https://toolbus.example/c.json#x', /no fragment/],
    ['https://user:pw@toolbus.example/c.json', /no credentials/],
    ['not a url', /is not a URL/],
  ] as const) {
    assert.throws(
      () => checkMcpClientMetadataUrl(value, 'mcpClientMetadataUrl'),
      (error: unknown) =>
        McpConnectionError.isInstance(error) &&
        error.code === 'mcp_invalid_config' &&
        error.message.startsWith('mcpClientMetadataUrl: ') &&
        problem.test(error.message),
      value,
    );
  }
  assert.equal(checkMcpClientMetadataUrl('https://toolbus.example/c.json'), 'https://toolbus.example/c.json');
});
