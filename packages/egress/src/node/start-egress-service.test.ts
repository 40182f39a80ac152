import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { labelsFor, pod, startFakeKubernetes, until } from '../identity/__fixtures__/fake-kubernetes.ts';
import { createKubernetesPodIdentitySource } from '../identity/kubernetes-pod-identity-source.ts';
import { requestThroughProxy } from './__fixtures__/request-through-proxy.ts';
import { startTestUpstream } from './__fixtures__/start-test-upstream.ts';
import { loadOrCreateCertificateAuthority } from './certificate-authority.ts';
import { startEgressService } from './start-egress-service.ts';

const root = mkdtempSync(join(tmpdir(), 'toolbus-egress-service-'));
after(() => rmSync(root, { recursive: true, force: true }));
const sandboxId = '44444444-4444-4444-8444-444444444444';

describe('startEgressService', () => {
  it('binds health first, serves only once the pod informer synced, identifies by source address, and 503s when it breaks', async () => {
    const api = await startFakeKubernetes();
    // The test client connects from 127.0.0.1, so that is the sandbox pod's address.
    api.state.pods = [pod('pod-1', '127.0.0.1', labelsFor(sandboxId, 'user-1'))];
    api.state.watchStatus = 500;
    const upstream = await startTestUpstream();
    let healthPort = 0;
    const healthBeforeSync: number[] = [];
    const identitySource = createKubernetesPodIdentitySource({
      apiUrl: api.url,
      namespace: 'sandboxes',
      token: 'k8s-token',
      backoff: { initialMs: 20, maxMs: 40 },
    });
    const service = startEgressService({
      identitySource,
      caDirectory: join(root, 'ca'),
      context: {
        resolveHost: async () => ['127.0.0.1'],
        addressPolicy: { level: 'strict', allow: ['plain.test'] },
        connectedApps: () => [],
        mcpServers: () => [],
        credentialResolvers: [],
      },
      onHealthListening: (port) => {
        healthPort = port;
      },
      syncTimeoutMs: 5_000,
    });
    await until(() => healthPort !== 0, 'health bound');
    healthBeforeSync.push((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status);
    api.state.watchStatus = 200;
    const running = await service;
    assert.deepEqual(healthBeforeSync, [503]);
    assert.equal((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status, 200);
    const ca = (await loadOrCreateCertificateAuthority({ directory: join(root, 'ca') })).certificatePem;
    const allowed = await requestThroughProxy({
      proxy: { port: running.port },
      url: `http://plain.test:${upstream.port}/x`,
      ca,
    });
    assert.equal(allowed.status, 200);

    api.send({ type: 'DELETED', object: pod('pod-1', '127.0.0.1', labelsFor(sandboxId, 'user-1'), '2') });
    await until(() => identitySource.identify('127.0.0.1') === undefined, 'the deletion seen');
    const gone = await requestThroughProxy({
      proxy: { port: running.port },
      url: `http://plain.test:${upstream.port}/x`,
      ca,
    });
    assert.equal(gone.status, 403);
    assert.equal(JSON.parse(gone.body).error, 'unidentified_sandbox');

    api.state.watchStatus = 500;
    api.endWatches();
    await until(() => !running.proxy.ready(), 'unsynced');
    assert.equal((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).status, 503);
    const unsynced = await requestThroughProxy({
      proxy: { port: running.port },
      url: `http://plain.test:${upstream.port}/x`,
      ca,
    });
    assert.equal(unsynced.status, 503);
    await running.stop();
    await upstream.close();
    api.close();
  });

  it('refuses to start when the identity source never syncs', async () => {
    const api = await startFakeKubernetes();
    api.state.watchStatus = 500;
    await assert.rejects(
      startEgressService({
        identitySource: createKubernetesPodIdentitySource({
          apiUrl: api.url,
          namespace: 'sandboxes',
          token: 'k8s-token',
          backoff: { initialMs: 20, maxMs: 40 },
        }),
        caDirectory: join(root, 'ca2'),
        context: {
          resolveHost: async () => [],
          connectedApps: () => [],
          mcpServers: () => [],
          credentialResolvers: [],
        },
        syncTimeoutMs: 200,
      }),
      { code: 'identity_not_synced' },
    );
    api.close();
  });
});
