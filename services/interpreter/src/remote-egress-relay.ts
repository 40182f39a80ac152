import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { egressTokenPreamble } from '@toolbus/spec';
import type { SandboxEgressLease, SandboxEgressProvider } from './sandbox-egress.ts';

/** Options for {@link createRemoteEgressRelay}. */
export interface RemoteEgressRelayOptions {
  /** The standalone egress proxy (`toolbus egress serve`), reached over TCP. */
  readonly proxy: { readonly host: string; readonly port: number };
  /**
   * A PEM file holding the proxy's CA certificate (the certificate alone: a file with a private key in it is
   * refused, since what is trusted here is copied into every sandbox).
   */
  readonly caCertificateFile: string;
  /** Where the run sockets live (a 0711 folder); a fresh temporary folder when absent. */
  readonly directory?: string;
}

/** A relay provider; `close()` removes its folder once the service stops. */
export interface RemoteEgressRelay extends SandboxEgressProvider {
  close(): void;
}

/** The certificates of a PEM file, refusing one that carries a private key. */
function certificatesOnly(path: string): string {
  const text = readFileSync(path, 'utf8');
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    throw new Error(
      `${path} holds a private key: give the egress proxy's CA certificate alone (it is copied into sandboxes).`,
    );
  }
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (certificates === null) throw new Error(`${path} holds no PEM certificate.`);
  return `${certificates.join('\n')}\n`;
}

/**
 * Network for runs of many users in one pod, through a standalone egress proxy: a run that carries a signed egress
 * token gets a Unix socket of its own (bound into its sandbox, as in one process), and every connection the run
 * makes on it is relayed to the proxy over TCP after one line, `TOOLBUS-EGRESS-TOKEN <token>`, written by the relay
 * here, outside the sandbox. The proxy identifies the connection by that verified token, so each run acts as its
 * own user; the sandbox never sees the token (not in its environment, files, nor on its socket). A run without a
 * token gets no network at all.
 */
export function createRemoteEgressRelay(options: RemoteEgressRelayOptions): RemoteEgressRelay {
  const caCertificate = certificatesOnly(options.caCertificateFile);
  const directory = options.directory ?? mkdtempSync('/tmp/toolbus-egress-relay-');
  mkdirSync(directory, { recursive: true });
  chmodSync(directory, 0o711);
  const caCertificatePath = join(directory, 'ca.pem');
  writeFileSync(caCertificatePath, caCertificate, { mode: 0o644 });
  chmodSync(caCertificatePath, 0o644);
  return {
    async open({ token }) {
      if (token === undefined) return undefined;
      const line = `${egressTokenPreamble}${token}\r\n`;
      const sockets = new Set<Socket>();
      const server = createServer((client) => {
        const upstream = connect({ host: options.proxy.host, port: options.proxy.port });
        sockets.add(client);
        sockets.add(upstream);
        const closeBoth = (): void => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', closeBoth);
        upstream.on('error', closeBoth);
        client.on('close', closeBoth);
        upstream.on('close', closeBoth);
        upstream.setNoDelay(true);
        // The token goes first, on the proxy's side only; the sandbox's bytes follow untouched.
        upstream.write(line);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      const socketPath = join(directory, `${randomUUID()}.sock`);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socketPath, resolve);
      });
      // The sandbox runs under another uid; connecting needs write permission on the socket file.
      chmodSync(socketPath, 0o666);
      const lease: SandboxEgressLease = {
        socketPath,
        caCertificatePath,
        async close() {
          for (const socket of sockets) socket.destroy();
          sockets.clear();
          await new Promise<void>((resolve) => server.close(() => resolve()));
          rmSync(socketPath, { force: true });
        },
      };
      return lease;
    },
    close() {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
