// The real `@modelcontextprotocol/server-everything` from npm, run with this Node (24).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freeLoopbackPort } from '@toolbus/core/testing';

const require = createRequire(import.meta.url);

/** Path of the server's entry script (`dist/index.js`). */
export const everythingServerEntry = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** Starts the everything server in `streamableHttp` (or `sse`) mode on a free loopback port. */
export async function startEverythingHttpServer(
  mode: 'streamableHttp' | 'sse' = 'streamableHttp',
): Promise<{ readonly baseUrl: string; close(): Promise<void> }> {
  const port = await freeLoopbackPort();
  const child = spawn(process.execPath, [everythingServerEntry, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`everything server did not start: ${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += String(chunk);
      if (/listening|running/i.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr.on('data', onData);
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`everything server exited (${code}): ${output}`));
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
