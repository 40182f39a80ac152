import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { labelsFor, listen, pod, startFakeKubernetes, until } from './__fixtures__/fake-kubernetes.ts';
import { createDockerEventsIdentitySource } from './docker-events-identity-source.ts';
import { type IdentitySource, waitForIdentitySync } from './identity-source.ts';
import { createKubernetesPodIdentitySource } from './kubernetes-pod-identity-source.ts';

const sandboxA = '11111111-1111-4111-8111-111111111111';
const sandboxB = '22222222-2222-4222-8222-222222222222';
const sandboxC = '33333333-3333-4333-8333-333333333333';

function kubernetesSource(url: string): IdentitySource {
  return createKubernetesPodIdentitySource({
    apiUrl: url,
    namespace: 'sandboxes',
    token: 'k8s-token',
    backoff: { initialMs: 20, maxMs: 50 },
  });
}

describe('Kubernetes pod informer', () => {
  it('lists, watches, follows adds and deletes, resumes from the last version, and relists on 410', async () => {
    const api = await startFakeKubernetes();
    api.state.pods = [
      pod('pod-a', '10.0.0.5', labelsFor(sandboxA, 'user-a')),
      pod('pod-x', '10.0.0.9', { app: 'other' }),
    ];
    const source = kubernetesSource(api.url);
    source.start();
    await waitForIdentitySync(source, 2000);
    assert.equal(source.identify('10.0.0.5')?.sandboxId, sandboxA);
    assert.equal(source.identify('10.0.0.5')?.userId, 'user-a');
    assert.equal(source.identify('10.0.0.9'), undefined, 'a pod without our labels is no sandbox');
    assert.deepEqual(api.state.watchVersions, ['100']);

    api.send({ type: 'ADDED', object: pod('pod-b', '10.0.0.6', labelsFor(sandboxB, 'user-b'), '101') });
    await until(() => source.identify('10.0.0.6')?.sandboxId === sandboxB, 'pod b');
    api.send({
      type: 'MODIFIED',
      object: pod(
        'pod-b',
        '10.0.0.6',
        { ...labelsFor(sandboxB, 'user-b'), 'app.kubernetes.io/managed-by': 'someone-else' },
        '102',
      ),
    });
    await until(() => source.identify('10.0.0.6') === undefined, 'managed-by re-checked');
    // The launcher labels the pod with the chat it serves (and may relabel it for the next chat).
    api.send({
      type: 'ADDED',
      object: pod('pod-s', '10.0.0.8', labelsFor(sandboxC, 'user-c', 'chat-1'), '102'),
    });
    await until(() => source.identify('10.0.0.8')?.sessionId === 'chat-1', 'session label');
    assert.equal(source.identify('10.0.0.8')?.userId, 'user-c');
    api.send({
      type: 'MODIFIED',
      object: pod('pod-s', '10.0.0.8', labelsFor(sandboxC, 'user-c', 'chat-2'), '102'),
    });
    await until(() => source.identify('10.0.0.8')?.sessionId === 'chat-2', 'relabelled session');
    api.send({
      type: 'MODIFIED',
      object: pod('pod-s', '10.0.0.8', labelsFor(sandboxC, 'user-c', '../chat two'), '102'),
    });
    await until(() => source.identify('10.0.0.8')?.sessionId === undefined, 'malformed session label');
    assert.equal(
      source.identify('10.0.0.8')?.sandboxId,
      sandboxC,
      'a bad session label names no session only',
    );
    api.send({ type: 'DELETED', object: pod('pod-s', '10.0.0.8', labelsFor(sandboxC, 'user-c'), '102') });
    await until(() => source.identify('10.0.0.8') === undefined, 'pod s deleted');
    api.send({ type: 'DELETED', object: pod('pod-a', '10.0.0.5', labelsFor(sandboxA, 'user-a'), '103') });
    await until(() => source.identify('10.0.0.5') === undefined, 'pod a deleted');

    api.endWatches();
    await until(() => api.state.watchVersions.length === 2, 'rewatch');
    assert.equal(api.state.watchVersions[1], '103', 'the watch resumes from the last version seen');
    assert.equal(api.state.lists, 1);

    api.state.pods = [pod('pod-c', '10.0.0.7', labelsFor(sandboxC, 'user-c'))];
    api.state.resourceVersion = '500';
    api.send({ type: 'ERROR', object: { kind: 'Status', code: 410 } });
    await until(() => api.state.lists === 2, 'relist after 410');
    await until(() => source.identify('10.0.0.7')?.sandboxId === sandboxC, 'relisted pod c');
    assert.equal(api.state.watchVersions.at(-1), '500');

    api.state.watchStatus = 500;
    api.endWatches();
    await until(() => !source.synced(), 'unsynced after a disconnect');
    assert.equal(source.identify('10.0.0.7'), undefined, 'nothing is identified while unsynced');
    api.state.watchStatus = 200;
    await until(() => source.synced(), 'synced again');
    source.stop();
    api.close();
  });

  it('fails hard when two sandboxes share an address at the first sync, and times out when it never syncs', async () => {
    const api = await startFakeKubernetes();
    api.state.pods = [
      pod('pod-a', '10.0.0.5', labelsFor(sandboxA, 'a')),
      pod('pod-b', '10.0.0.5', labelsFor(sandboxB, 'b')),
    ];
    const duplicate = kubernetesSource(api.url);
    duplicate.start();
    await assert.rejects(waitForIdentitySync(duplicate, 2000), /share the address/);
    duplicate.stop();
    api.state.pods = [];
    api.state.watchStatus = 500;
    const never = kubernetesSource(api.url);
    never.start();
    await assert.rejects(waitForIdentitySync(never, 150), { code: 'identity_not_synced' });
    never.stop();
    api.close();
  });
});

/** A loopback server speaking the Docker Engine API's container list, inspect and events endpoints. */
async function startFakeDocker() {
  const state = {
    containers: new Map<string, { Id: string; Labels: Record<string, string>; ip: string }>(),
    sinces: [] as string[],
    lists: 0,
    streams: [] as ServerResponse[],
  };
  const asSummary = (container: { Id: string; Labels: Record<string, string>; ip: string }) => ({
    Id: container.Id,
    Labels: container.Labels,
    NetworkSettings: { Networks: { sandboxes: { IPAddress: container.ip } } },
  });
  const { server, url } = await listen((request, response) => {
    const requestUrl = new URL(request.url ?? '/', 'http://x');
    response.setHeader('content-type', 'application/json');
    if (requestUrl.pathname === '/containers/json') {
      state.lists += 1;
      const filters = JSON.parse(requestUrl.searchParams.get('filters') ?? '{}');
      assert.deepEqual(filters, { label: ['app.kubernetes.io/managed-by=toolbus'] });
      response.end(JSON.stringify([...state.containers.values()].map(asSummary)));
      return;
    }
    const inspect = /^\/containers\/([^/]+)\/json$/.exec(requestUrl.pathname);
    if (inspect?.[1] !== undefined) {
      const container = state.containers.get(inspect[1]);
      if (container === undefined) {
        response.writeHead(404).end('{}');
        return;
      }
      const { Labels, ...rest } = asSummary(container);
      response.end(JSON.stringify({ ...rest, Config: { Labels } }));
      return;
    }
    if (requestUrl.pathname === '/events') {
      state.sinces.push(requestUrl.searchParams.get('since') ?? '');
      response.writeHead(200, { 'transfer-encoding': 'chunked' });
      response.flushHeaders();
      state.streams.push(response);
      return;
    }
    response.writeHead(404).end('{}');
  });
  return {
    url,
    state,
    event: (action: string, id: string) => {
      for (const stream of state.streams)
        stream.write(
          `${JSON.stringify({ Type: 'container', Action: action, Actor: { ID: id }, time: 1 })}\n`,
        );
    },
    endStreams: () => {
      for (const stream of state.streams.splice(0)) stream.end();
    },
    close: () => {
      for (const stream of state.streams.splice(0)) stream.end();
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('Docker events source', () => {
  it('lists, streams events from one second before the list, follows start/restart/die, and resyncs', async () => {
    const docker = await startFakeDocker();
    docker.state.containers.set('c-a', {
      Id: 'c-a',
      Labels: labelsFor(sandboxA, 'user-a'),
      ip: '172.18.0.5',
    });
    const source = createDockerEventsIdentitySource({
      baseUrl: docker.url,
      network: 'sandboxes',
      backoff: { initialMs: 20, maxMs: 50 },
      nowSeconds: () => 1_700_000_000,
    });
    source.start();
    await waitForIdentitySync(source, 2000);
    assert.equal(source.identify('172.18.0.5')?.sandboxId, sandboxA);
    assert.deepEqual(docker.state.sinces, ['1699999999']);

    assert.equal(source.identify('172.18.0.5')?.sessionId, undefined, 'no session label, no session');

    docker.state.containers.set('c-b', {
      Id: 'c-b',
      Labels: labelsFor(sandboxB, 'user-b', 'chat-b'),
      ip: '172.18.0.6',
    });
    docker.event('start', 'c-b');
    await until(() => source.identify('172.18.0.6')?.sandboxId === sandboxB, 'started container');
    assert.equal(source.identify('172.18.0.6')?.sessionId, 'chat-b', 'the session comes from its label');
    // Restarted with a new address: the old one is forgotten.
    docker.state.containers.set('c-b', {
      Id: 'c-b',
      Labels: labelsFor(sandboxB, 'user-b'),
      ip: '172.18.0.16',
    });
    docker.event('start', 'c-b');
    await until(() => source.identify('172.18.0.16')?.sandboxId === sandboxB, 'restarted container');
    assert.equal(source.identify('172.18.0.6'), undefined);
    docker.event('die', 'c-a');
    await until(() => source.identify('172.18.0.5') === undefined, 'died container');

    docker.endStreams();
    await until(() => docker.state.lists === 2 && source.synced(), 'relist after disconnect');
    assert.equal(docker.state.sinces.length, 2);
    source.stop();
    assert.equal(source.synced(), false);
    docker.close();
  });
});
