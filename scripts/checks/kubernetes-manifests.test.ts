// The Kubernetes deployment files (deploy/kubernetes) against the Kubernetes API schemas, and the security facts
// they must keep: sandboxes reach the egress proxy's port and nothing else, everything else is denied by default,
// and the proxy's account may only list and watch pods in its namespace.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { type KubernetesDocument, kubernetesSchemaProblems, readManifestFile } from './kubernetes-schema.ts';

const repoRoot = new URL('../..', import.meta.url).pathname;
const manifestFolder = join(repoRoot, 'deploy/kubernetes');

// biome-ignore lint/suspicious/noExplicitAny: manifests are read as plain JSON and walked by field name.
type Json = any;

function loadManifests(): KubernetesDocument[] {
  const kustomization = parse(readFileSync(join(manifestFolder, 'kustomization.yaml'), 'utf8')) as {
    resources: string[];
  };
  return kustomization.resources.flatMap((file) => readManifestFile(join(manifestFolder, file), file));
}

function objectsOf(documents: readonly KubernetesDocument[], kind: string): Json[] {
  return documents.filter((document) => document.object.kind === kind).map((document) => document.object);
}

function named(documents: readonly KubernetesDocument[], kind: string, name: string): Json {
  const found = objectsOf(documents, kind).find((object) => object.metadata?.name === name);
  assert.ok(found, `${kind} ${name} is in deploy/kubernetes`);
  return found;
}

/** Whether a label selector (matchLabels and `In` expressions) selects a pod with `labels`. */
function selects(selector: Json, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every((expression: Json) => {
    assert.equal(expression.operator, 'In', 'only In expressions are used here');
    return expression.values.includes(labels[expression.key]);
  });
  return byLabel && byExpression;
}

function policiesFor(
  documents: readonly KubernetesDocument[],
  labels: Record<string, string>,
  type: string,
): Json[] {
  return objectsOf(documents, 'NetworkPolicy').filter(
    (policy) => policy.spec.policyTypes.includes(type) && selects(policy.spec.podSelector, labels),
  );
}

describe('deploy/kubernetes', () => {
  let documents: KubernetesDocument[];
  before(() => {
    documents = loadManifests();
  });

  it('lists every manifest file in its kustomization', () => {
    const files = readdirSync(manifestFolder).filter(
      (file) => file.endsWith('.yaml') && file !== 'kustomization.yaml',
    );
    const kustomization = parse(readFileSync(join(manifestFolder, 'kustomization.yaml'), 'utf8'));
    assert.deepEqual([...kustomization.resources].sort(), files.sort());
  });

  it('holds only objects valid against the Kubernetes API schemas', async () => {
    assert.ok(documents.length >= 15, `${documents.length} documents`);
    const problems = await kubernetesSchemaProblems(documents);
    const found = [...problems].filter(([, messages]) => messages.length > 0);
    assert.deepEqual(found, []);
  });

  it('refuses a misspelled field, a wrong type, a missing required field and an unknown kind', async () => {
    const interpreter = documents.find(
      (document) =>
        document.object.kind === 'StatefulSet' &&
        (document.object as Json).metadata.name === 'toolbus-interpreter',
    );
    assert.ok(interpreter);
    const broken = (source: string, edit: (object: Json) => void): KubernetesDocument => {
      const object = structuredClone(interpreter.object) as Json;
      edit(object);
      return { source, object };
    };
    const problems = await kubernetesSchemaProblems([
      broken('misspelled', (object) => {
        const container = object.spec.template.spec.containers[0];
        container.securityContxt = container.securityContext;
        delete container.securityContext;
      }),
      broken('misspelled at the top', (object) => {
        object.spec.replicsa = 3;
      }),
      broken('wrong type', (object) => {
        object.spec.replicas = 'three';
      }),
      broken('missing', (object) => {
        delete object.spec.template.spec.containers;
      }),
      broken('unknown kind', (object) => {
        object.kind = 'StatefulSett';
      }),
    ]);
    assert.match(
      problems.get('misspelled')?.join() ?? '',
      /'"securityContxt"' does not exist in type 'IContainer'/,
    );
    assert.match(
      problems.get('misspelled at the top')?.join() ?? '',
      /'"replicsa"' does not exist in type 'IStatefulSetSpec'/,
    );
    assert.match(problems.get('wrong type')?.join() ?? '', /replicas must be integer/);
    assert.match(
      problems.get('missing')?.join() ?? '',
      /spec\/template\/spec must have required property containers/,
    );
    assert.deepEqual(problems.get('unknown kind'), ['unknown kind StatefulSett in apps/v1']);
  });

  it('denies every pod’s ingress and egress by default', () => {
    const deny = named(documents, 'NetworkPolicy', 'toolbus-default-deny');
    assert.deepEqual(deny.spec.podSelector, {});
    assert.deepEqual([...deny.spec.policyTypes].sort(), ['Egress', 'Ingress']);
    assert.equal(deny.spec.ingress, undefined);
    assert.equal(deny.spec.egress, undefined);
  });

  it('lets interpreter and sandbox pods reach the egress proxy’s pods on its proxy port, and nothing else (no DNS)', () => {
    const interpreter = named(documents, 'StatefulSet', 'toolbus-interpreter');
    const proxy = named(documents, 'Deployment', 'toolbus-egress-proxy');
    const proxyLabels = proxy.spec.template.metadata.labels;
    const proxyPort = proxy.spec.template.spec.containers[0].ports.find(
      (port: Json) => port.name === 'proxy',
    );
    const proxyArgs: string[] = proxy.spec.template.spec.containers[0].args;
    assert.equal(proxyArgs[proxyArgs.indexOf('--port') + 1], String(proxyPort.containerPort));
    const sandboxes = [
      interpreter.spec.template.metadata.labels,
      { 'app.kubernetes.io/name': 'toolbus', 'app.kubernetes.io/component': 'sandbox' },
    ];
    for (const labels of sandboxes) {
      const policies = policiesFor(documents, labels, 'Egress');
      const rules = policies.flatMap((policy) => policy.spec.egress ?? []);
      assert.ok(rules.length > 0, `${labels['app.kubernetes.io/component']} has an egress rule`);
      for (const rule of rules) {
        assert.equal(rule.to.length, 1);
        assert.deepEqual(Object.keys(rule.to[0]), ['podSelector'], 'a pod selector, no ipBlock or namespace');
        assert.ok(selects(rule.to[0].podSelector, proxyLabels), 'the rule selects the proxy pods');
        for (const other of ['server', 'worker', 'interpreter', 'sandbox']) {
          const labels = { 'app.kubernetes.io/name': 'toolbus', 'app.kubernetes.io/component': other };
          assert.equal(selects(rule.to[0].podSelector, labels), false, `not the ${other} pods`);
        }
        assert.deepEqual(rule.ports, [{ protocol: 'TCP', port: proxyPort.containerPort }]);
      }
    }
    // The proxy's Service forwards that port, and the proxy accepts it from sandboxes only.
    const service = named(documents, 'Service', 'toolbus-egress-proxy');
    assert.ok(selects({ matchLabels: service.spec.selector }, proxyLabels));
    assert.deepEqual(
      service.spec.ports.map((port: Json) => port.targetPort),
      ['proxy'],
    );
    const ingress = policiesFor(documents, proxyLabels, 'Ingress').flatMap(
      (policy) => policy.spec.ingress ?? [],
    );
    assert.equal(ingress.length, 1);
    assert.deepEqual(ingress[0].ports, [{ protocol: 'TCP', port: proxyPort.containerPort }]);
    for (const component of ['server', 'worker', 'egress-proxy']) {
      const labels = { 'app.kubernetes.io/name': 'toolbus', 'app.kubernetes.io/component': component };
      assert.equal(
        selects(ingress[0].from[0].podSelector, labels),
        false,
        `${component} cannot use the proxy`,
      );
    }
  });

  it('lets only the server and the workers reach the interpreters, on the interpreter port', () => {
    const interpreter = named(documents, 'StatefulSet', 'toolbus-interpreter');
    const labels = interpreter.spec.template.metadata.labels;
    const rules = policiesFor(documents, labels, 'Ingress').flatMap((policy) => policy.spec.ingress ?? []);
    assert.equal(rules.length, 1);
    assert.deepEqual(rules[0].ports, [{ protocol: 'TCP', port: 8000 }]);
    const allowed = ['server', 'worker', 'interpreter', 'egress-proxy', 'sandbox'].filter((component) =>
      rules[0].from.some((peer: Json) =>
        selects(peer.podSelector, {
          'app.kubernetes.io/name': 'toolbus',
          'app.kubernetes.io/component': component,
        }),
      ),
    );
    assert.deepEqual(allowed, ['server', 'worker']);
  });

  it('gives the egress proxy least privilege: list and watch pods in its own namespace, nothing else', () => {
    const role = named(documents, 'Role', 'toolbus-egress-proxy');
    assert.deepEqual(role.rules, [{ apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] }]);
    assert.equal(objectsOf(documents, 'ClusterRole').length, 0);
    assert.equal(objectsOf(documents, 'ClusterRoleBinding').length, 0);
    const bindings = objectsOf(documents, 'RoleBinding');
    assert.deepEqual(
      bindings.map((binding) => [binding.roleRef, binding.subjects]),
      [
        [
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'toolbus-egress-proxy' },
          [{ kind: 'ServiceAccount', name: 'toolbus-egress-proxy' }],
        ],
      ],
    );
    // Only the proxy's pods carry an API token; the account does not hand it to anyone by default.
    const account = named(documents, 'ServiceAccount', 'toolbus-egress-proxy');
    assert.equal(account.automountServiceAccountToken, false);
    for (const workload of [...objectsOf(documents, 'Deployment'), ...objectsOf(documents, 'StatefulSet')]) {
      const pod = workload.spec.template.spec;
      const isProxy = workload.metadata.name === 'toolbus-egress-proxy';
      assert.equal(pod.automountServiceAccountToken, isProxy, `${workload.metadata.name} token mount`);
      assert.equal(pod.serviceAccountName, isProxy ? 'toolbus-egress-proxy' : undefined);
    }
  });

  it('runs only the interpreter with the privileges bubblewrap needs; every other container drops all capabilities as non-root', () => {
    for (const workload of [...objectsOf(documents, 'Deployment'), ...objectsOf(documents, 'StatefulSet')]) {
      const pod = workload.spec.template.spec;
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        const context = container.securityContext;
        assert.equal(context.privileged ?? false, false, `${container.name} is not privileged`);
        assert.deepEqual(context.capabilities.drop, ['ALL']);
        if (workload.metadata.name === 'toolbus-interpreter') {
          assert.equal(pod.hostUsers, false, 'the interpreter pod has its own user namespace');
          assert.ok(context.capabilities.add.includes('SYS_ADMIN'));
          continue;
        }
        assert.equal(pod.securityContext.runAsNonRoot, true, `${workload.metadata.name} runs as non-root`);
        assert.equal(context.allowPrivilegeEscalation, false);
        assert.equal(context.capabilities.add, undefined);
      }
    }
  });

  it('names every Secret it reads in docs/deploying.md, and points the pool at each interpreter pod by name', () => {
    const guide = readFileSync(join(repoRoot, 'docs/deploying.md'), 'utf8');
    const references = new Set<string>();
    const walk = (value: Json): void => {
      if (Array.isArray(value)) for (const item of value) walk(item);
      else if (typeof value === 'object' && value !== null) {
        if (value.secretKeyRef) references.add(`${value.secretKeyRef.name} ${value.secretKeyRef.key}`);
        if (value.secretName) references.add(`${value.secretName} `);
        for (const item of Object.values(value)) walk(item);
      }
    };
    for (const document of documents) walk(document.object);
    assert.ok(references.size >= 4);
    for (const reference of references) {
      const [name, key] = reference.split(' ');
      assert.ok(guide.includes(name as string), `docs/deploying.md names the Secret ${name}`);
      if (key) assert.ok(guide.includes(key), `docs/deploying.md names the key ${key} of ${name}`);
    }
    const interpreter = named(documents, 'StatefulSet', 'toolbus-interpreter');
    const config = JSON.parse(named(documents, 'ConfigMap', 'toolbus-config').data['config.json']);
    assert.deepEqual(
      config.sandboxUrls,
      Array.from(
        { length: interpreter.spec.replicas },
        (_, index) => `http://toolbus-interpreter-${index}.${interpreter.spec.serviceName}:8000`,
      ),
    );
  });
});
