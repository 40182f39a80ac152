import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import {
  type CannedAnswer,
  type CannedUpstream,
  chunk,
  startCannedUpstream,
} from './__fixtures__/canned-upstream.ts';
import { type RunningGateway, startGateway } from './gateway-server.ts';

// An upstream as strict as Mistral's API: `stream_options` is an extra field it refuses with a 422.
function strictUpstream(_path: string, body: Record<string, unknown>): CannedAnswer {
  if (body.stream_options !== undefined)
    return {
      status: 422,
      json: {
        object: 'error',
        message: {
          detail: [
            {
              type: 'extra_forbidden',
              loc: ['body', 'stream_options'],
              msg: 'Extra inputs are not permitted',
            },
          ],
        },
        type: 'invalid_request_error',
      },
    };
  const messages = body.messages as { content: string }[];
  if (messages.at(-1)?.content === 'too long')
    return {
      status: 400,
      json: { error: { message: 'max_tokens is too large', type: 'invalid_request_error' } },
    };
  return { events: [chunk({ role: 'assistant', content: 'Hello' }), chunk({}, { finish: 'stop' })] };
}

describe('the Messages route against an upstream that refuses stream_options', () => {
  let upstream: CannedUpstream;
  let gateway: RunningGateway;
  let client: Anthropic;
  const request = (content: string) => ({
    model: 'mistral-small',
    max_tokens: 64,
    messages: [{ role: 'user' as const, content }],
  });

  before(async () => {
    upstream = await startCannedUpstream(strictUpstream);
    gateway = await startGateway({ upstreams: [{ name: 'strict', baseUrl: upstream.baseUrl }] });
    client = new Anthropic({ baseURL: gateway.url, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await upstream.close();
  });

  it('asks again without the field, streams the answer, and leaves it out from then on', async () => {
    const first = await client.messages.stream(request('hi')).finalMessage();
    assert.deepEqual(first.content, [{ type: 'text', text: 'Hello' }]);
    assert.deepEqual(
      upstream.bodies.map((entry) => entry.body.stream_options),
      [{ include_usage: true }, undefined],
    );
    await client.messages.stream(request('again')).finalMessage();
    assert.equal(upstream.bodies.length, 3);
    assert.equal(upstream.bodies[2]?.body.stream_options, undefined);
  });

  it('passes any other refusal on with the upstream’s own message', async () => {
    const refused = await client.messages
      .stream(request('too long'))
      .finalMessage()
      .catch((error: unknown) => error);
    assert.ok(refused instanceof Anthropic.BadRequestError);
    assert.match(refused.message, /max_tokens is too large/);
  });
});
