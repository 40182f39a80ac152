import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connect, createServer } from 'node:tls';
import { EgressProxyError } from '../identity/egress-proxy-error.ts';
import { loadOrCreateCertificateAuthority } from './certificate-authority.ts';
import { createLeafCertificateCache } from './leaf-certificate-cache.ts';

const root = mkdtempSync(join(tmpdir(), 'toolbus-ca-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('loadOrCreateCertificateAuthority', () => {
  it('creates a CA once, with 0700/0600 modes, and loads the same one afterwards', async () => {
    const directory = join(root, 'store');
    const first = await loadOrCreateCertificateAuthority({ directory });
    assert.equal(statSync(directory).mode & 0o777, 0o700);
    assert.equal(statSync(join(directory, 'ca.pem')).mode & 0o777, 0o600);
    assert.equal(statSync(first.certificatePath).mode & 0o777, 0o644);
    assert.ok(first.certificate.ca);
    assert.ok(!readFileSync(first.certificatePath, 'utf8').includes('PRIVATE KEY'));
    const second = await loadOrCreateCertificateAuthority({ directory });
    assert.equal(second.certificatePem, first.certificatePem);
  });

  it('agrees on one CA when two start at once', async () => {
    const directory = join(root, 'race');
    const [left, right] = await Promise.all([
      loadOrCreateCertificateAuthority({ directory }),
      loadOrCreateCertificateAuthority({ directory }),
    ]);
    assert.equal(left.certificatePem, right.certificatePem);
  });

  it('refuses a damaged store and never regenerates over it', async () => {
    const directory = join(root, 'damaged');
    const created = await loadOrCreateCertificateAuthority({ directory });
    const store = join(directory, 'ca.pem');
    const certificateOnly = created.certificatePem;
    writeFileSync(store, certificateOnly);
    await assert.rejects(loadOrCreateCertificateAuthority({ directory }), (error) => {
      assert.ok(EgressProxyError.isInstance(error));
      return error.code === 'ca_store_damaged';
    });
    assert.equal(readFileSync(store, 'utf8'), certificateOnly, 'the damaged store is left as it was');
    writeFileSync(
      store,
      '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
    );
    await assert.rejects(loadOrCreateCertificateAuthority({ directory }), { code: 'ca_store_damaged' });
  });

  it('refuses an expired CA and one not valid yet', async () => {
    const directory = join(root, 'clock');
    await loadOrCreateCertificateAuthority({ directory });
    const future = new Date(Date.now() + 1900 * 86_400_000);
    await assert.rejects(loadOrCreateCertificateAuthority({ directory, now: () => future }), {
      code: 'ca_invalid',
    });
    const past = new Date(Date.now() - 86_400_000);
    await assert.rejects(loadOrCreateCertificateAuthority({ directory, now: () => past }), {
      code: 'ca_invalid',
    });
  });
});

describe('createLeafCertificateCache', () => {
  it('mints per-host leaves that a client trusting only the CA verifies, and caches them', async () => {
    const authority = await loadOrCreateCertificateAuthority({ directory: join(root, 'leaf') });
    const leaves = createLeafCertificateCache(authority);
    const server = createServer({
      SNICallback: (name, callback) => {
        leaves.secureContextFor(name).then(
          (context) => callback(null, context),
          (error: Error) => callback(error),
        );
      },
    });
    server.on('secureConnection', (socket) => socket.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const handshake = (servername: string, ca: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, servername, ca }, () => {
          socket.once('data', (data) => resolve(data.toString()));
        });
        socket.on('error', reject);
      });
    assert.equal(await handshake('api.example.com', authority.certificatePem), 'hello');
    assert.equal(await handshake('other.example.com', authority.certificatePem), 'hello');
    assert.equal(await handshake('api.example.com', authority.certificatePem), 'hello');
    assert.equal(leaves.size, 2);
    const stranger = await loadOrCreateCertificateAuthority({ directory: join(root, 'stranger') });
    await assert.rejects(
      handshake('api.example.com', stranger.certificatePem),
      /self-signed|unable to verify|certificate/i,
    );
    server.close();
  });
});
