// Run as pid 1 of a fresh pid namespace (`unshare --pid --fork --mount-proc`), as in a container without an init:
// starts the service, lets runs end by their timeout, and prints the zombie processes left in the namespace.
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startInterpreterServer } from '../interpreter-server.ts';

function zombies(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z') found.push(stat.slice(0, stat.lastIndexOf(')') + 1));
    } catch {}
  }
  return found;
}

const server = await startInterpreterServer({});
const runs = Number(process.env.RUNS ?? 3);
for (let index = 0; index < runs; index += 1) {
  const response = await fetch(`${server.url}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      code: 'import subprocess, time\nsubprocess.Popen(["/usr/bin/sleep", "30"])\ntime.sleep(30)',
      timeout_ms: 500,
    }),
  });
  await response.json();
}
await sleep(500);
const left = zombies();
await server.close();
console.log(JSON.stringify({ pid: process.pid, zombies: left }));
