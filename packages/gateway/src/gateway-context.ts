import type { RecoveryDialects } from '@toolbus/core/repair';
import type { GatewayLogEvent, GatewayUpstream } from './gateway-options.ts';
import type { ModelAliases } from './model-aliases.ts';
import type { ServedModelNames } from './served-models.ts';
import type { ResolvedUpstream } from './upstream.ts';

/** What every route reads: the upstreams with their keys, limits and the log. */
export interface GatewayContext {
  readonly upstreams: readonly ResolvedUpstream[];
  /** The model aliases, resolved before an upstream is chosen (`resolveModel`). */
  readonly aliases: ModelAliases;
  /** The names the upstreams serve, which a pattern alias never takes from them. */
  readonly servedNames: ServedModelNames;
  readonly maxResponseBytes: number;
  readonly upstreamTimeoutMs: number;
  readonly log: (event: GatewayLogEvent) => void;
  /** The dialects recovery tries first for a model behind an upstream (served template, then profile). */
  readonly dialectsFor: (upstream: GatewayUpstream, model: string) => Promise<RecoveryDialects>;
}
