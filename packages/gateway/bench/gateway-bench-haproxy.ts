// HAProxy (Debian's) as a pass-through in front of the gateway benchmark's upstream: the floor a proxy written in C
// sets for the second process hop on this machine, beside the `node:http` pass-through and the gateway. HTTP mode
// with `option http-no-delay` (each chunk forwarded as it arrives, no aggregation), one thread, like one Node
// process. Its CPU time comes from /proc (clock ticks, so coarse: read over a whole round).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '@toolbus/core/testing';

export interface HaproxyPassthrough {
  readonly url: string;
  readonly version: string;
  /** Its process id (GATEWAY_BENCH_PIN pins it). */
  readonly pid: number | undefined;
  /** CPU time of the HAProxy process so far, µs. */
  cpu(): number;
  stop(): Promise<void>;
}

/** Starts HAProxy in front of `upstreamUrl`, or returns undefined when no `haproxy` is installed. */
export async function startHaproxyPassthrough(upstreamUrl: string): Promise<HaproxyPassthrough | undefined> {
  let version: string;
  try {
    version = execFileSync('haproxy', ['-v'], { encoding: 'utf8' }).split('\n')[0] ?? 'HAProxy';
  } catch {
    return undefined;
  }
  const upstream = new URL(upstreamUrl);
  const port = await freeLoopbackPort();
  const directory = await mkdtemp(join(tmpdir(), 'toolbus-gateway-bench-haproxy-'));
  const config = [
    'global',
    '  nbthread 1',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  option http-no-delay',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout http-keep-alive 60s',
    'frontend bench',
    `  bind 127.0.0.1:${port}`,
    '  default_backend upstream',
    'backend upstream',
    `  server upstream ${upstream.hostname}:${upstream.port}`,
    '',
  ].join('\n');
  const configPath = join(directory, 'haproxy.cfg');
  await writeFile(configPath, config);
  const child = spawn('haproxy', ['-db', '-f', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  // Up when it accepts a connection.
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`HAProxy did not come up: ${log}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return {
    url,
    version,
    pid: child.pid,
    cpu() {
      // /proc/PID/stat: the command name is in parentheses; utime and stime are the 12th and 13th fields after it.
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
