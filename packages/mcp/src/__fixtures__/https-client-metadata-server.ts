// Serves toolbus's Client ID Metadata Document over https on loopback, as a deployment serves it at its public URL.
// The certificate is made at test time by Debian's openssl: a test CA (which the conformance suite's process is told
// to trust through NODE_EXTRA_CA_CERTS) and a leaf for 127.0.0.1 and localhost signed by it. Nothing is downloaded.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mcpClientMetadataDocument } from '../mcp-client-metadata-document.ts';

/** The running document server. */
export interface HttpsClientMetadataServer {
  /** The document's URL (the client id): `https://127.0.0.1:<port>/oauth/client-metadata.json`. */
  readonly clientMetadataUrl: string;
  /** The test CA's certificate file (PEM), for NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
  /** The paths of the GET requests served. */
  readonly fetched: string[];
  close(): Promise<void>;
}

function openssl(directory: string, args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: directory, stdio: 'pipe' });
}

/** Starts the server; `redirectUris` go into the document. */
export async function startHttpsClientMetadataServer(options: {
  readonly redirectUris: readonly string[];
}): Promise<HttpsClientMetadataServer> {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-cimd-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(directory, ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=toolbus test CA']);
  writeFileSync(
    join(directory, 'leaf.ext'),
    'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
  );
  openssl(directory, ['req', '-new', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=localhost']);
  openssl(directory, [
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'leaf.pem',
    '-days',
    '1',
    '-extfile',
    'leaf.ext',
  ]);
  const fetched: string[] = [];
  let document = '';
  const server = createServer(
    { key: readFileSync(join(directory, 'leaf.key')), cert: readFileSync(join(directory, 'leaf.pem')) },
    (request, response) => {
      const path = new URL(request.url ?? '/', 'https://127.0.0.1').pathname;
      if (request.method !== 'GET' || path !== '/oauth/client-metadata.json') {
        response.writeHead(404).end();
        return;
      }
      fetched.push(path);
      response.writeHead(200, { 'content-type': 'application/json' }).end(document);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const clientMetadataUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/client-metadata.json`;
  document = JSON.stringify(mcpClientMetadataDocument({ clientMetadataUrl, redirectUris: options.redirectUris }));
  return {
    clientMetadataUrl,
    caFile: join(directory, 'ca.pem'),
    fetched,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
