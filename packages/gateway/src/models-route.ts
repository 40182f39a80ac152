import type { ServerResponse } from 'node:http';
import { isPlainObject } from '@toolbus/spec';
import type { GatewayContext } from './gateway-context.ts';
import { type ErrorDialect, sendError } from './gateway-error.ts';
import { describeUpstreamFailure, readUpstreamBody, sendUpstream } from './upstream.ts';

/**
 * `GET /v1/models`: the models of every upstream, as each lists them (`GET {baseUrl}/models`), plus the models the
 * config names; an upstream that does not answer is left out and named in the log. 502 when none answers. An
 * Anthropic client (`anthropic-version` sent) gets Anthropic's list: `{data: [{type: "model", id, display_name,
 * created_at}], has_more, first_id, last_id}`.
 */
export async function listModels(
  context: GatewayContext,
  response: ServerResponse,
  dialect: ErrorDialect = 'openai',
): Promise<void> {
  const seen = new Set<string>();
  const data: Record<string, unknown>[] = [];
  let answered = 0;
  await Promise.all(
    context.upstreams.map(async (upstream) => {
      const named = upstream.models ?? [];
      try {
        const upstreamResponse = await sendUpstream({
          upstream,
          path: '/models',
          method: 'GET',
          signal: AbortSignal.timeout(10_000),
          timeoutMs: 10_000,
        });
        const body = await readUpstreamBody(upstreamResponse, 4 * 1024 * 1024);
        if ((upstreamResponse.statusCode ?? 500) >= 300)
          throw new Error(`it answered ${upstreamResponse.statusCode}`);
        const parsed: unknown = JSON.parse(body.toString('utf8'));
        answered += 1;
        const listed = isPlainObject(parsed) && Array.isArray(parsed.data) ? parsed.data : [];
        for (const model of listed) {
          if (!isPlainObject(model) || typeof model.id !== 'string' || seen.has(model.id)) continue;
          seen.add(model.id);
          data.push({ ...model, object: 'model', owned_by: model.owned_by ?? upstream.name });
        }
      } catch (error) {
        context.log({
          event: 'models-unavailable',
          upstream: upstream.name,
          reason: describeUpstreamFailure(error),
        });
      }
      for (const id of named) {
        if (seen.has(id)) continue;
        seen.add(id);
        data.push({ id, object: 'model', created: 0, owned_by: upstream.name });
      }
    }),
  );
  if (answered === 0 && data.length === 0) {
    sendError(response, {
      dialect,
      status: 502,
      code: 'upstream_unreachable',
      message: 'No upstream model server answered the model list.',
    });
    return;
  }
  const text = JSON.stringify(dialect === 'anthropic' ? anthropicModelList(data) : { object: 'list', data });
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

// Anthropic's model objects carry a creation date (RFC 3339) where OpenAI's carry seconds; one page holds them all.
function anthropicModelList(models: readonly Record<string, unknown>[]): Record<string, unknown> {
  const data = models.map((model) => ({
    type: 'model',
    id: model.id,
    display_name: model.id,
    created_at: new Date(typeof model.created === 'number' ? model.created * 1000 : 0).toISOString(),
  }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
