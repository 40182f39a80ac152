#!/usr/bin/env node
// `toolbus-interpreter [--port N] [--host H] [--work-root DIR] [--skills-root DIR] [--allow-network]
// [--max-concurrent N] [--max-queued N] [--egress-proxy HOST:PORT --egress-ca FILE]`: runs the code-execution service until SIGINT/SIGTERM. Prints the URL and
// what the sandbox enforces (or why it cannot) at start. In a container, give --max-concurrent the pod's CPU
// count: the default is the machine's, which a container's CPU limit does not change. With --egress-proxy, a run
// whose request carries a signed egress token gets network through that standalone proxy (its CA certificate
// in --egress-ca), relayed with the token; every other run still has none.
import { parseArgs } from 'node:util';
import { omitUndefined } from '@toolbus/spec';
import { startInterpreterServer } from './interpreter-server.ts';
import { createRemoteEgressRelay, type RemoteEgressRelay } from './remote-egress-relay.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8000' },
    host: { type: 'string', default: '127.0.0.1' },
    'work-root': { type: 'string' },
    'skills-root': { type: 'string' },
    'allow-network': { type: 'boolean', default: false },
    'max-concurrent': { type: 'string' },
    'max-queued': { type: 'string' },
    'egress-proxy': { type: 'string' },
    'egress-ca': { type: 'string' },
  },
});

/** A count flag: a whole number (at least `minimum`), or exit 2 naming the flag. */
function countFlag(name: string, value: string | undefined, minimum: number): number | undefined {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!Number.isSafeInteger(count) || count < minimum) {
    console.error(`toolbus-interpreter: --${name} takes a whole number from ${minimum}, not ${value}`);
    process.exit(2);
  }
  return count;
}
const maxConcurrent = countFlag('max-concurrent', values['max-concurrent'], 1);
const maxQueued = countFlag('max-queued', values['max-queued'], 1);
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`toolbus-interpreter: invalid --port ${values.port}`);
  process.exit(2);
}
let relay: RemoteEgressRelay | undefined;
const egressProxy = values['egress-proxy'];
if (egressProxy !== undefined) {
  const match = /^(.+):(\d{1,5})$/.exec(egressProxy);
  const proxyPort = Number(match?.[2]);
  if (match?.[1] === undefined || proxyPort < 1 || proxyPort > 65_535 || values['egress-ca'] === undefined) {
    console.error('toolbus-interpreter: --egress-proxy takes HOST:PORT, and needs --egress-ca FILE');
    process.exit(2);
  }
  relay = createRemoteEgressRelay({
    proxy: { host: match[1].replace(/^\[|\]$/g, ''), port: proxyPort },
    caCertificateFile: values['egress-ca'],
  });
}
const server = await startInterpreterServer({
  port,
  host: values.host,
  ...omitUndefined({ workRoot: values['work-root'], skillsRoot: values['skills-root'] }),
  allowNetwork: values['allow-network'],
  limits: omitUndefined({ maxConcurrent, maxQueued }),
  onLog: (line) => console.error(line),
  ...omitUndefined({ egress: relay }),
});
console.log(`toolbus-interpreter listening on ${server.url} (sandbox: ${server.isolation.status})`);
if (server.isolation.reason) console.log(`  ${server.isolation.reason}`);
if (egressProxy !== undefined) console.log(`  egress: runs with a token relayed to ${egressProxy}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => {
      relay?.close();
      process.exit(0);
    });
  });
}
