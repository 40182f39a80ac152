import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EgressIdentity } from '../decision/egress-request.ts';
import type { RunIdentityRegistry } from './run-identity-registry.ts';
import type { EgressProxy } from './start-egress-proxy.ts';

/** Options for {@link createRunSocketEgress}. */
export interface RunSocketEgressOptions {
  readonly proxy: EgressProxy;
  /** The registry the proxy's context identifies connections with. */
  readonly registry: RunIdentityRegistry;
  /** The proxy CA's certificate (PEM), copied beside the sockets where sandboxed uids can read it. */
  readonly caCertificatePem: string;
  /** Who a run is for (its user and session); called once per run with the tag its client gave, if any. */
  readonly identityForRun: (runId: string, tag: string | undefined) => EgressIdentity;
  /** Where sockets are made; a fresh 0711 folder under /tmp when absent (socket paths must stay short). */
  readonly directory?: string;
}

/** One run's socket, in the shape the interpreter's egress provider expects. */
export interface RunSocketLease {
  readonly socketPath: string;
  readonly caCertificatePath: string;
  close(): Promise<void>;
}

/** Opens a socket per run; `close` removes every socket and the folder. */
export interface RunSocketEgress {
  open(run: { readonly runId: string; readonly tag?: string }): Promise<RunSocketLease>;
  close(): void;
}

/**
 * Serves each sandbox run on a Unix socket of its own: the socket (bound into that sandbox only) is the run's
 * identity, which no code in another sandbox can borrow, unlike a source address. Socket names are random, the
 * folder is not listable by sandboxes (0711), and a socket stops serving when its run ends.
 */
export function createRunSocketEgress(options: RunSocketEgressOptions): RunSocketEgress {
  const directory = options.directory ?? mkdtempSync('/tmp/toolbus-egress-');
  chmodSync(directory, 0o711);
  const caCertificatePath = join(directory, 'ca.pem');
  writeFileSync(caCertificatePath, options.caCertificatePem, { mode: 0o644 });
  chmodSync(caCertificatePath, 0o644);
  return {
    async open({ runId, tag }) {
      const connection = `run:${runId}`;
      const socketPath = join(directory, `${randomUUID()}.sock`);
      options.registry.register(connection, options.identityForRun(runId, tag));
      const listener = await options.proxy.listen({ path: socketPath, connection });
      // The sandbox runs under another uid; connecting needs write permission on the socket file.
      chmodSync(socketPath, 0o666);
      return {
        socketPath,
        caCertificatePath,
        async close() {
          options.registry.unregister(connection);
          await listener.close();
          rmSync(socketPath, { force: true });
        },
      };
    },
    close() {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
