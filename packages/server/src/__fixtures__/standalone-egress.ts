// The standalone egress deployment, as `toolbus egress serve` and an interpreter service run it: the egress proxy
// verifying each run's signed token (keyed from the server's secret key), the interpreter service (real
// bubblewrap) relaying each run's socket to it, and the test API's CA trusted upstream.
import { join } from 'node:path';
import type { EgressContext } from '@toolbus/egress';
import {
  type CertificateAuthority,
  deriveEgressTokenKey,
  type EgressProxy,
  loadOrCreateCertificateAuthority,
  startEgressProxy,
} from '@toolbus/egress/node';
import {
  createRemoteEgressRelay,
  type InterpreterServer,
  type RemoteEgressRelay,
  startInterpreterServer,
} from '@toolbus/interpreter';
import { omitUndefined } from '@toolbus/spec';
import { apiTestNetwork, type TestHttpsApi } from './egress-world.ts';

export interface StandaloneEgress {
  readonly authority: CertificateAuthority;
  readonly proxy: EgressProxy;
  readonly relay: RemoteEgressRelay;
  readonly interpreter: InterpreterServer;
  /** Stops the interpreter, the relay and the proxy, in that order. */
  close(): Promise<void>;
}

export async function startStandaloneEgress(options: {
  /** Where the proxy keeps its CA (`proxy-ca` below it). */
  readonly directory: string;
  readonly api: TestHttpsApi;
  /** The server's secret key, from which both sides derive the run-token key. */
  readonly secretKey: Uint8Array;
  /** The proxy's catalogue, broker and logger; connections are identified by their run token alone. */
  readonly context: Omit<EgressContext, 'identify' | 'resolveHost' | 'addressPolicy'>;
  readonly onInterpreterLog?: (line: string) => void;
}): Promise<StandaloneEgress> {
  const authority = await loadOrCreateCertificateAuthority({ directory: join(options.directory, 'proxy-ca') });
  const proxy = startEgressProxy({
    authority,
    upstreamTrustedCa: [options.api.ca.certificatePem],
    runTokens: { key: deriveEgressTokenKey(options.secretKey) },
    // No pod is labelled here: only a verified token identifies a connection.
    context: { identify: () => undefined, ...apiTestNetwork, ...options.context },
  });
  const proxyPort = (await proxy.listen({ port: 0, host: '127.0.0.1' })).port ?? 0;
  const relay = createRemoteEgressRelay({
    proxy: { host: '127.0.0.1', port: proxyPort },
    caCertificateFile: authority.certificatePath,
  });
  const interpreter = await startInterpreterServer({
    port: 0,
    egress: relay,
    ...omitUndefined({ onLog: options.onInterpreterLog }),
  });
  return {
    authority,
    proxy,
    relay,
    interpreter,
    close: async () => {
      await interpreter.close();
      relay.close();
      await proxy.drain();
    },
  };
}
