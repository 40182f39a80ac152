#!/usr/bin/env node
// `toolbus-interpreter [--port N] [--host H] [--work-root DIR] [--skills-root DIR] [--allow-network]`: runs the code-execution
// service until SIGINT/SIGTERM. Prints the URL and what the sandbox enforces (or why it cannot) at start.
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
  },
});
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
  onLog: (line) => console.error(line),
});
console.log(`toolbus-interpreter listening on ${server.url} (sandbox: ${server.isolation.status})`);
if (server.isolation.reason) console.log(`  ${server.isolation.reason}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
