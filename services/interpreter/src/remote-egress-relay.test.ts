import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { egressTokenPreamble } from '@toolbus/spec';
import { createRemoteEgressRelay } from './remote-egress-relay.ts';

const root = mkdtempSync(join(tmpdir(), 'toolbus-relay-'));
after(() => rmSync(root, { recursive: true, force: true }));
// Any PEM certificate block will do for what the relay checks (it copies certificates, it does not parse them).
const certificate = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('createRemoteEgressRelay', () => {
  it('refuses a CA file holding a private key, since what it trusts is copied into every sandbox', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const file = join(root, 'ca.pem');
    writeFileSync(file, `${privateKey.export({ type: 'pkcs8', format: 'pem' })}${certificate}`);
    assert.throws(
      () => createRemoteEgressRelay({ proxy: { host: '127.0.0.1', port: 9 }, caCertificateFile: file }),
      /private key/,
    );
  });

  it('gives a run without a token no socket, and relays a run with one after the token line', async () => {
    const file = join(root, 'ca.crt');
    writeFileSync(file, certificate);
    let received = '';
    const proxySockets: Socket[] = [];
    const proxy = createServer((socket) => {
      proxySockets.push(socket);
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        socket.write('pong');
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as { port: number }).port;
    const relay = createRemoteEgressRelay({
      proxy: { host: '127.0.0.1', port },
      caCertificateFile: file,
      directory: join(root, 'relay'),
    });
    assert.equal(await relay.open({ runId: 'r1' }), undefined);
    const lease = await relay.open({ runId: 'r2', token: 'v1.payload.signature' });
    assert.ok(lease);
    assert.equal(readFileSync(lease.caCertificatePath, 'utf8'), certificate);
    assert.equal(statSync(lease.socketPath).mode & 0o777, 0o666);
    const client = connect(lease.socketPath);
    client.write('CONNECT api.test:443 HTTP/1.1\r\n\r\n');
    const answer = await new Promise<string>((resolve) =>
      client.once('data', (chunk) => resolve(chunk.toString())),
    );
    assert.equal(answer, 'pong');
    assert.ok(
      received.startsWith(`${egressTokenPreamble}v1.payload.signature\r\nCONNECT api.test:443`),
      received,
    );
    client.destroy();
    await lease.close();
    assert.equal(existsSync(lease.socketPath), false);
    for (const socket of proxySockets) socket.destroy();
    proxy.close();
    relay.close();
    assert.equal(existsSync(join(root, 'relay')), false);
  });
});
