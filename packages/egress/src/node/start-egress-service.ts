import { omitUndefined } from '@toolbus/spec';
import type { EgressContext } from '../decision/egress-context.ts';
import {
  defaultIdentitySyncTimeoutMs,
  type IdentitySource,
  waitForIdentitySync,
} from '../identity/identity-source.ts';
import { loadOrCreateCertificateAuthority } from './certificate-authority.ts';
import { listenHealthEndpoint } from './health-endpoint.ts';
import { type EgressProxy, type EgressProxyOptions, startEgressProxy } from './start-egress-proxy.ts';

/** Options for {@link startEgressService}. */
export interface EgressServiceOptions {
  /** The decision context without `identify`: the service identifies connections by source address. */
  readonly context: Omit<EgressContext, 'identify'>;
  readonly identitySource: IdentitySource;
  /** The CA store directory. */
  readonly caDirectory: string;
  readonly upstreamTrustedCa?: readonly string[];
  /** Accept runs' signed egress tokens too (interpreter pods relaying many users' runs); see `startEgressProxy`. */
  readonly runTokens?: EgressProxyOptions['runTokens'];
  readonly host?: string;
  /** The proxy port (8080 in a deployment; 0 picks one). */
  readonly port?: number;
  /** The health port (8081 in a deployment; 0 picks one). */
  readonly healthPort?: number;
  /** How long to wait for the identity source's first sync before giving up; 60 s. */
  readonly syncTimeoutMs?: number;
  /** Called with the health port as soon as it is bound (before the slow start-up steps). */
  readonly onHealthListening?: (port: number) => void;
}

/** A running egress service. */
export interface EgressService {
  readonly proxy: EgressProxy;
  readonly port: number;
  readonly healthPort: number;
  /** Stops the identity source and drains the proxy. */
  stop(): Promise<void>;
}

/**
 * Runs the proxy as its own service, in the order that keeps it fail-closed: health first (so probes see 503,
 * not a refused connection), then the CA, then the identity source, whose first sync it waits for (else it
 * stops and rejects with `identity_not_synced`: it never serves unverified identities), then the proxy port.
 */
export async function startEgressService(options: EgressServiceOptions): Promise<EgressService> {
  let authorityReady = false;
  const source = options.identitySource;
  let proxy: EgressProxy | undefined;
  const health = await listenHealthEndpoint({
    ready: () => authorityReady && source.synced() && proxy?.ready() === true,
    port: options.healthPort ?? 0,
    ...omitUndefined({ host: options.host }),
  });
  const healthPort = health.port;
  options.onHealthListening?.(healthPort);
  try {
    const authority = await loadOrCreateCertificateAuthority({ directory: options.caDirectory });
    authorityReady = true;
    source.start();
    await waitForIdentitySync(source, options.syncTimeoutMs ?? defaultIdentitySyncTimeoutMs);
    proxy = startEgressProxy({
      context: { ...options.context, identify: (address) => source.identify(address) },
      authority,
      isIdentitySynced: () => source.synced(),
      ...omitUndefined({ upstreamTrustedCa: options.upstreamTrustedCa, runTokens: options.runTokens }),
    });
    const listener = await proxy.listen({
      port: options.port ?? 0,
      ...omitUndefined({ host: options.host }),
    });
    const running = proxy;
    return {
      proxy: running,
      port: listener.port ?? 0,
      healthPort,
      async stop() {
        source.stop();
        await running.drain();
        await health.close();
      },
    };
  } catch (error) {
    source.stop();
    await health.close();
    throw error;
  }
}

/**
 * Drains the service on SIGTERM or SIGINT (parked approvals expire, in-flight requests finish, capped), then
 * calls `exit`.
 */
export function drainOnSignals(service: EgressService, exit: (code: number) => void = process.exit): void {
  const onSignal = (): void => {
    void service.stop().then(
      () => exit(0),
      () => exit(1),
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
