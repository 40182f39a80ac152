import type { ServerResponse } from 'node:http';
import type { GatewayContext } from './gateway-context.ts';
import { type ErrorDialect, sendError } from './gateway-error.ts';
import { type ModelObject, upstreamModels } from './served-models.ts';
import { upstreamFor } from './upstream.ts';

/**
 * The models the gateway serves ({@link upstreamModels}), plus the exact model aliases, each as a model of its own
 * owned by the upstream of its target, which it names in `parent` (see {@link aliasModel}).
 */
export async function collectModels(
  context: GatewayContext,
  timeoutMs = 10_000,
): Promise<{ readonly data: ModelObject[]; readonly answered: number }> {
  const { data, answered } = await upstreamModels(context, timeoutMs);
  for (const [id, target] of context.aliases.exactNames) {
    if (data.some((model) => model.id === id)) continue;
    data.push(aliasModel(context, id, target, data));
  }
  return { data, answered };
}

/**
 * A name an alias takes, as a model of its own: OpenAI's four fields, and `parent`, the served model that answers
 * it, as vLLM names the base model a LoRA adapter runs on (OpenAI-compatible clients read the fields they know and
 * keep the rest). Anthropic's shape, whose fields are fixed, leaves it out.
 */
function aliasModel(
  context: GatewayContext,
  id: string,
  target: string,
  served: readonly ModelObject[],
): ModelObject {
  return {
    id,
    object: 'model',
    created: served.find((model) => model.id === target)?.created ?? 0,
    owned_by: upstreamFor(context.upstreams, target).name,
    parent: target,
  };
}

/**
 * `GET /v1/models`: {@link collectModels}, 502 when no upstream answers and the config names none. An Anthropic
 * client (`anthropic-version` sent) gets Anthropic's list: `{data: [{type: "model", id, display_name, created_at}],
 * has_more, first_id, last_id}`.
 */
export async function listModels(
  context: GatewayContext,
  response: ServerResponse,
  dialect: ErrorDialect = 'openai',
): Promise<void> {
  const { data, answered } = await collectModels(context);
  if (answered === 0 && data.length === 0) {
    sendError(response, {
      dialect,
      status: 502,
      code: 'upstream_unreachable',
      message: 'No upstream model server answered the model list.',
    });
    return;
  }
  const list = dialect === 'anthropic' ? anthropicPage(data.map(anthropicModel)) : { object: 'list', data };
  sendJson(response, list);
}

/**
 * `GET /v1/models/{id}` (OpenAI's retrieve, Anthropic's get with `anthropic-version`): the model as the list has it;
 * a name an alias pattern takes (`claude-*`, or the default `*`) is a model of its own, named as the client asked.
 * Any other name is a 404 (`model_not_found`, Anthropic's `not_found_error`) that names the models served.
 */
export async function retrieveModel(
  context: GatewayContext,
  id: string,
  response: ServerResponse,
  dialect: ErrorDialect = 'openai',
): Promise<void> {
  const { data } = await collectModels(context);
  let model = data.find((candidate) => candidate.id === id);
  const resolved = context.aliases.resolve(id);
  if (model === undefined && resolved.alias !== undefined)
    model = aliasModel(context, id, resolved.served, data);
  if (model === undefined) {
    sendError(response, {
      dialect,
      status: 404,
      code: 'model_not_found',
      param: 'model',
      message: `The model ${JSON.stringify(id)} does not exist here. ${servedModelsSentence(context, data)}`,
    });
    return;
  }
  sendJson(response, dialect === 'anthropic' ? anthropicModel(model) : model);
}

/**
 * "The gateway serves: a, b, c; aliases: claude-* → qwen3-coder." Said with every unknown-model 404, so a user who
 * typed a name sees which to type instead (at most 20 names).
 */
export function servedModelsSentence(context: GatewayContext, models: readonly { id: string }[]): string {
  const names = models.map((model) => model.id);
  const shown =
    names.length > 20 ? `${names.slice(0, 20).join(', ')} and ${names.length - 20} more` : names.join(', ');
  const patterns = context.aliases.patterns.map(({ pattern, target }) => `${pattern} → ${target}`);
  const served = names.length > 0 ? `The gateway serves: ${shown}` : 'No upstream listed its models';
  const aliases = patterns.length > 0 ? `; aliases: ${patterns.join(', ')}` : '';
  const hint = context.aliases.patterns.some(({ pattern }) => pattern === '*')
    ? ''
    : ' (a default for other names: "models": {"*": "<served model>"} in the gateway config)';
  return `${served}${aliases}.${hint}`;
}

function sendJson(response: ServerResponse, value: unknown): void {
  const text = JSON.stringify(value);
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

// Anthropic's model objects carry a creation date (RFC 3339) where OpenAI's carry seconds; one page holds them all.
function anthropicModel(model: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'model',
    id: model.id,
    display_name: model.id,
    created_at: new Date(typeof model.created === 'number' ? model.created * 1000 : 0).toISOString(),
  };
}

function anthropicPage(data: readonly Record<string, unknown>[]): Record<string, unknown> {
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
