import { lookup } from 'node:dns/promises';
import type { AddressPolicy } from '@toolbus/core/net';
import {
  type ApprovalBroker,
  type ApprovalDecision,
  type ApprovalRequest,
  type ConnectedApp,
  createConnectedAppResolver,
  createInProcessApprovalBroker,
  createMcpServerResolver,
  type EgressContext,
  formatEgressLogLine,
} from '@toolbus/egress';
import type { SandboxEgressProvider } from '@toolbus/interpreter';
import { omitUndefined } from '@toolbus/spec';
import { type ConnectedAppRecord, DEFAULT_ORGANIZATION_ID, type Storage } from '@toolbus/storage';
import {
  storageEgressMcpServers,
  storageMcpCredentials,
  storageSandboxMcpServers,
} from './storage-mcp-egress.ts';

/** Options for {@link startSandboxEgress}. */
export interface SandboxEgressOptions {
  readonly storage: Storage;
  readonly userId: string;
  /** The organisation the runs act in: only its connected apps are injected (default the default one). */
  readonly organizationId?: string;
  /** Where the proxy's CA lives (a 0700 folder, made once and reused). */
  readonly caDirectory: string;
  /**
   * Who decides ASK actions: a callback asking the person at the terminal (`toolbus chat`), or a broker of the
   * server's (`toolbus serve`: a card in the chat), with how long a request waits.
   */
  readonly approvals:
    | { readonly ask: (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision> }
    | { readonly broker: ApprovalBroker; readonly timeoutMs: number };
  /** The session approvals are granted for (default one per process). */
  readonly sessionId?: string;
  /** Egress log lines (names only, never values). */
  readonly onLog?: (line: string) => void;
  /**
   * How destinations are resolved and checked, and which extra CAs upstreams may use: the system's DNS, the strict
   * policy (public addresses only) and the system's CAs when absent. Tests point a name at a loopback API here.
   */
  readonly network?: {
    readonly resolveHost?: EgressContext['resolveHost'];
    readonly addressPolicy?: AddressPolicy;
    readonly upstreamTrustedCa?: readonly string[];
  };
}

/** The egress proxy of one chat (or turn): run_python's only way out, injecting the user's connected apps. */
export interface SandboxEgress {
  readonly provider: SandboxEgressProvider;
  close(): Promise<void>;
}

function toConnectedApp(record: ConnectedAppRecord): ConnectedApp {
  return {
    id: record.id,
    name: record.name,
    urlPatterns: record.urlPatterns,
    actions: record.actions,
    usable: record.enabled && Object.keys(record.headers).length > 0,
    enabled: record.enabled,
  };
}

/**
 * The parts of an egress context that come from storage: the identity's user's connected apps and the
 * organisation's, and the configured MCP servers (all read on every request, so changes apply at once), with the
 * resolvers that fill their credentials from the stored, encrypted values of exactly that user (MCP first, as an
 * MCP server's host is never forwarded bare).
 */
export function storageEgressCatalogue(
  storage: Storage,
): Pick<EgressContext, 'connectedApps' | 'mcpServers' | 'credentialResolvers'> {
  return {
    // Only the run's organisation's apps: an identity naming none is a run of the default organisation (the one
    // organisation of a single-tenant deployment), never of every organisation.
    connectedApps: async (identity) => {
      const organizationId = identity.organizationId ?? DEFAULT_ORGANIZATION_ID;
      const records = await storage.connectedApps.list(
        omitUndefined({ userId: identity.userId, organizationId }),
      );
      return records
        .filter(
          (record) =>
            record.organizationId === organizationId &&
            (record.userId === null || record.userId === identity.userId),
        )
        .map(toConnectedApp);
    },
    // MCP servers by URL: a sandbox request to one gets its credential, and a `tools/call` passes the gate first;
    // only servers made available to sandboxes, for users with access (every other one is claimed and refused).
    mcpServers: (identity) => storageSandboxMcpServers(storage, identity),
    credentialResolvers: [
      createMcpServerResolver({
        allServers: () => storageEgressMcpServers(storage),
        credentialsFor: (server, identity) => storageMcpCredentials(storage, server.id, identity),
      }),
      createConnectedAppResolver({
        template: async (app) => (await storage.connectedApps.get(app.id))?.headers,
        organizationValues: async (app) =>
          (await storage.connectedApps.get(app.id))?.organizationValues ?? {},
        userValues: (app, user) =>
          storage.userSecrets.get({ kind: 'connectedAppValues', ownerId: app.id, userId: user }),
      }),
    ],
  };
}

/**
 * Starts the egress proxy in this process for one user (`toolbus chat`, and each `toolbus serve` turn): connected
 * apps come from storage on every request (so changes apply at once), credentials are filled from the stored values,
 * and each run_python execution gets a Unix socket of its own.
 */
export async function startSandboxEgress(options: SandboxEgressOptions): Promise<SandboxEgress> {
  const { storage, userId } = options;
  // The proxy's code (certificates, TLS) is loaded at the first sandbox that needs network, not with the server.
  const {
    createRunIdentityRegistry,
    createRunSocketEgress,
    loadOrCreateCertificateAuthority,
    startEgressProxy,
  } = await import('@toolbus/egress/node');
  const authority = await loadOrCreateCertificateAuthority({ directory: options.caDirectory });
  const registry = createRunIdentityRegistry();
  const proxy = startEgressProxy({
    authority,
    context: {
      identify: registry.identify,
      resolveHost:
        options.network?.resolveHost ??
        (async (name) => (await lookup(name, { all: true, verbatim: true })).map((entry) => entry.address)),
      ...omitUndefined({ addressPolicy: options.network?.addressPolicy }),
      ...storageEgressCatalogue(storage),
      ...('broker' in options.approvals
        ? { approvalBroker: options.approvals.broker, approvalTimeoutMs: options.approvals.timeoutMs }
        : { approvalBroker: createInProcessApprovalBroker({ ask: options.approvals.ask }) }),
      ...(options.onLog === undefined
        ? {}
        : { logger: (event, fields) => options.onLog?.(formatEgressLogLine(event, fields)) }),
    },
    ...omitUndefined({ upstreamTrustedCa: options.network?.upstreamTrustedCa }),
  });
  const sockets = createRunSocketEgress({
    proxy,
    registry,
    caCertificatePem: authority.certificatePem,
    identityForRun: (runId, tag) => ({
      sandboxId: runId,
      userId,
      organizationId: options.organizationId ?? DEFAULT_ORGANIZATION_ID,
      sessionId: options.sessionId ?? `cli-${process.pid}`,
      ...omitUndefined({ tag }),
    }),
  });
  return {
    provider: sockets,
    async close() {
      await proxy.drain();
      sockets.close();
    },
  };
}

/** Whether the user has any connected app in the organisation (run_python then gets network through the proxy). */
export async function hasConnectedApps(
  storage: Storage,
  userId: string,
  organizationId: string = DEFAULT_ORGANIZATION_ID,
): Promise<boolean> {
  return (await storage.connectedApps.list({ userId, organizationId })).some((app) => app.enabled);
}

/**
 * The egress of one sandbox for `options.userId`: started only when the user has a connected app, so without one
 * run_python keeps no network at all (undefined). The caller closes it when the chat or turn ends.
 */
export async function startSandboxEgressIfConnected(
  options: SandboxEgressOptions,
): Promise<SandboxEgress | undefined> {
  if (!(await hasConnectedApps(options.storage, options.userId, options.organizationId))) return undefined;
  return startSandboxEgress(options);
}
