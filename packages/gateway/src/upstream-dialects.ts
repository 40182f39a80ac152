import {
  type ChatTemplateSource,
  createTemplateDialectCache,
  type RecoveryDialects,
  readServedChatTemplate,
  recoveryDialectsFor,
} from '@toolbus/core/repair';
import { omitUndefined } from '@toolbus/spec';
import type { GatewayUpstream } from './gateway-options.ts';
import { serverRoot } from './upstream.ts';

/**
 * The dialects recovery tries first for a model behind an upstream: those its served chat template writes (Ollama's
 * `/api/show`, llama.cpp's `/props`, or a template file or URL from the config), then its family's in the model
 * profiles. Each template is read once per upstream and model; a stack that does not answer leaves the profile.
 */
export function createUpstreamDialects(
  fetcher: typeof fetch | undefined,
): (upstream: GatewayUpstream, model: string) => Promise<RecoveryDialects> {
  const cache = createTemplateDialectCache();
  return async (upstream, model) => {
    const sources = fetcher === undefined ? [] : templateSources(upstream, model);
    let template: Awaited<ReturnType<typeof cache.dialectFor>>;
    for (const source of sources) {
      const key = `${upstream.name}:${source.kind}:${source.kind === 'llama.cpp' ? '' : model}`;
      template = await cache.dialectFor(key, () =>
        readServedChatTemplate(source, { fetch: fetcher as typeof fetch, signal: AbortSignal.timeout(3000) }),
      );
      if (template !== undefined) break;
    }
    return recoveryDialectsFor({ modelId: model, ...omitUndefined({ template }) });
  };
}

function templateSources(upstream: GatewayUpstream, model: string): ChatTemplateSource[] {
  const setting = upstream.chatTemplate ?? 'auto';
  if (setting === 'none') return [];
  const root = serverRoot(upstream.baseUrl);
  const ollama: ChatTemplateSource = { kind: 'ollama', baseUrl: root, model };
  const llamaCpp: ChatTemplateSource = { kind: 'llama.cpp', baseUrl: root };
  if (setting === 'auto') return [ollama, llamaCpp];
  if (setting === 'ollama') return [ollama];
  if (setting === 'llama.cpp') return [llamaCpp];
  return [/^https?:\/\//.test(setting) ? { kind: 'file', url: setting } : { kind: 'file', path: setting }];
}
