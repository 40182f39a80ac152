import { isPlainObject } from '@toolbus/spec';
import type { GatewayContext } from './gateway-context.ts';
import type { ResolvedModel } from './model-aliases.ts';
import { describeUpstreamFailure, readUpstreamBody, sendUpstream } from './upstream.ts';

/** A model as `GET /v1/models` lists it. */
export type ModelObject = Record<string, unknown> & { readonly id: string };

/**
 * Every upstream's models, as each lists them (`GET {baseUrl}/models`), plus the models the config names. An
 * upstream that does not answer is left out and named in the log; `answered` counts those that did.
 */
export async function upstreamModels(
  context: Pick<GatewayContext, 'upstreams' | 'log'>,
  timeoutMs: number,
): Promise<{ readonly data: ModelObject[]; readonly answered: number }> {
  const seen = new Set<string>();
  const data: ModelObject[] = [];
  let answered = 0;
  const add = (model: ModelObject): void => {
    if (seen.has(model.id)) return;
    seen.add(model.id);
    data.push(model);
  };
  await Promise.all(
    context.upstreams.map(async (upstream) => {
      try {
        const upstreamResponse = await sendUpstream({
          upstream,
          path: '/models',
          method: 'GET',
          signal: AbortSignal.timeout(timeoutMs),
          timeoutMs,
        });
        const body = await readUpstreamBody(upstreamResponse, 4 * 1024 * 1024);
        if ((upstreamResponse.statusCode ?? 500) >= 300)
          throw new Error(`it answered ${upstreamResponse.statusCode}`);
        const parsed: unknown = JSON.parse(body.toString('utf8'));
        answered += 1;
        const listed = isPlainObject(parsed) && Array.isArray(parsed.data) ? parsed.data : [];
        for (const model of listed) {
          if (!isPlainObject(model) || typeof model.id !== 'string') continue;
          add({ ...model, id: model.id, object: 'model', owned_by: model.owned_by ?? upstream.name });
        }
      } catch (error) {
        context.log({
          event: 'models-unavailable',
          upstream: upstream.name,
          reason: describeUpstreamFailure(error),
        });
      }
      for (const id of upstream.models ?? [])
        add({ id, object: 'model', created: 0, owned_by: upstream.name });
    }),
  );
  return { data, answered };
}

/**
 * The names the upstreams serve, read when a pattern alias could take a name (a served name is never taken from
 * its server) and kept for 30 s; an older list is answered at once while a new one is read.
 */
export class ServedModelNames {
  readonly #context: Pick<GatewayContext, 'upstreams' | 'log'>;
  #names: ReadonlySet<string> | undefined;
  #readAt: number | undefined;
  #reading: Promise<ReadonlySet<string>> | undefined;

  constructor(context: Pick<GatewayContext, 'upstreams' | 'log'>) {
    this.#context = context;
  }

  get(): Promise<ReadonlySet<string>> {
    const stale = this.#readAt === undefined || performance.now() - this.#readAt > 30_000;
    if (stale && this.#reading === undefined) {
      this.#reading = upstreamModels(this.#context, 5_000).then(({ data }) => {
        this.#names = new Set(data.map((model) => model.id));
        this.#readAt = performance.now();
        this.#reading = undefined;
        return this.#names;
      });
    }
    return this.#names !== undefined
      ? Promise.resolve(this.#names)
      : (this.#reading as Promise<ReadonlySet<string>>);
  }
}

/** A client's model name through the aliases: exact first, a served name as it is, then the patterns. */
export async function resolveModel(context: GatewayContext, asked: string): Promise<ResolvedModel> {
  if (!context.aliases.patternMatches(asked)) return context.aliases.resolve(asked);
  return context.aliases.resolve(asked, await context.servedNames.get());
}
