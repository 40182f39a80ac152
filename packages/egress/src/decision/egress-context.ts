import type { AddressPolicy } from '@toolbus/core/net';
import type { ApprovalBroker } from './approval-broker.ts';
import type { EgressHostResolver } from './check-egress-destination.ts';
import type { CredentialResolver } from './credential-resolver.ts';
import type { ConnectedApp, EgressMcpServer } from './egress-catalogue.ts';
import type { EgressLogger } from './egress-logger.ts';
import type { EgressIdentity } from './egress-request.ts';

type MaybePromise<T> = T | Promise<T>;

/** Everything {@link decideEgress} consults; each part is injected, so tests and deployments choose their own. */
export interface EgressContext {
  /** Who a connection belongs to; undefined (or a throw) means unidentified, and everything is refused. */
  readonly identify: (connection: string) => MaybePromise<EgressIdentity | undefined>;
  readonly resolveHost: EgressHostResolver;
  /** The destination policy; `{ level: 'strict' }` (public addresses only) when absent. */
  readonly addressPolicy?: AddressPolicy;
  /**
   * The toolbus API's URL: the one internal destination allowed. Nothing is injected there: code that calls the
   * API brings its own key (no production path mints one per run, so the proxy does not pretend to).
   */
  readonly apiUrl?: string;
  /** The connected apps of the identity's user and organisation. */
  readonly connectedApps: (identity: EgressIdentity) => MaybePromise<readonly ConnectedApp[]>;
  /** The MCP servers the identity's user can reach. */
  readonly mcpServers: (identity: EgressIdentity) => MaybePromise<readonly EgressMcpServer[]>;
  /** In order; the first that claims a request owns it (API token, MCP server, connected app). */
  readonly credentialResolvers: readonly CredentialResolver[];
  /** Absent: nobody can approve, so ASK actions expire at once. */
  readonly approvalBroker?: ApprovalBroker;
  /** How long an ASK request waits for a decision; 180 s when absent. */
  readonly approvalTimeoutMs?: number;
  /** Whether an in-band session tag names a session of this identity's user (tags are never trusted blindly). */
  readonly sessionBelongsTo?: (sessionId: string, identity: EgressIdentity) => MaybePromise<boolean>;
  readonly logger?: EgressLogger;
  /** Aborted when the proxy drains: waiting approvals expire. */
  readonly signal?: AbortSignal;
  /** Makes approval ids; random UUIDs when absent. */
  readonly createId?: () => string;
}

/** The largest request body the proxy reads, matching the largest request LLM APIs accept (32 MiB). */
export const maxEgressBodyBytes = 32 * 1024 * 1024;

/** How long an ASK request waits for a person by default. */
export const defaultApprovalTimeoutMs = 180_000;
