// A loopback HTTPS "mail API" for the browser tests: run_python reaches it only through the egress proxy, once the
// user has connected it as an app; it records what it received.
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createLeafCertificateCache, loadOrCreateCertificateAuthority } from '@toolbus/egress/node';

/** The loopback HTTPS API the sandbox reaches through the egress proxy, with its own test CA. */
export interface MailApi {
  readonly port: number;
  readonly certificatePem: string;
  /** Each request's method, path and Authorization header, as received. */
  readonly received: { method: string; path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

export async function startMailApi(directory: string): Promise<MailApi> {
  const authority = await loadOrCreateCertificateAuthority({ directory: join(directory, 'mail-ca') });
  const leaves = createLeafCertificateCache(authority);
  const received: MailApi['received'] = [];
  const server = createHttpsServer(
    {
      SNICallback: (name, callback) => {
        leaves.secureContextFor(name).then(
          (context) => callback(null, context),
          (error: Error) => callback(error),
        );
      },
    },
    (request, response) => {
      request.resume();
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          path: request.url ?? '',
          authorization: request.headers.authorization,
        });
        response.writeHead(202, { 'content-type': 'application/json' });
        response.end('{"queued":true}');
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    certificatePem: authority.certificatePem,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
