#!/usr/bin/env node
// `toolbus-interpreter [--port N] [--host H] [--work-root DIR] [--skills-root DIR] [--allow-network]
// [--max-concurrent N] [--max-queued N]`: runs the code-execution service until SIGINT/SIGTERM. Prints the URL and
// what the sandbox enforces (or why it cannot) at start. In a container, give --max-concurrent the pod's CPU
// count: the default is the machine's, which a container's CPU limit does not change.
import { parseArgs } from 'node:util';
import { omitUndefined } from '@toolbus/spec';
import { startInterpreterServer } from './interpreter-server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8000' },
    host: { type: 'string', default: '127.0.0.1' },
    'work-root': { type: 'string' },
    'skills-root': { type: 'string' },
    'allow-network': { type: 'boolean', default: false },
    'max-concurrent': { type: 'string' },
    'max-queued': { type: 'string' },
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
const server = await startInterpreterServer({
  port,
  host: values.host,
  ...omitUndefined({ workRoot: values['work-root'], skillsRoot: values['skills-root'] }),
  allowNetwork: values['allow-network'],
  limits: omitUndefined({ maxConcurrent, maxQueued }),
  onLog: (line) => console.error(line),
});
console.log(`toolbus-interpreter listening on ${server.url} (sandbox: ${server.isolation.status})`);
if (server.isolation.reason) console.log(`  ${server.isolation.reason}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
