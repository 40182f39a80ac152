import { Worker } from 'node:worker_threads';

/** A background thread that copies a database's write-ahead log into the database file. */
export interface WalCheckpointer {
  /** Checkpoints once more, closes the thread's connection and ends the thread. */
  stop(): Promise<void>;
}

// The worker's code, evaluated as CommonJS in the thread, so it is the same from the sources and from a build.
// PASSIVE never waits for a lock: the process's own connection keeps committing while frames are copied.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const database = new DatabaseSync(workerData.path);
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const run = () => {
  try {
    checkpoint.get();
  } catch {
    // Busy or closing: the next interval tries again.
  }
};
const timer = setInterval(run, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  run();
  database.close();
  parentPort.postMessage('stopped');
  parentPort.close();
});
parentPort.postMessage('ready');
`;

/**
 * Starts checkpointing the WAL of the database at `path` from a worker thread every `intervalMs`; the caller turns
 * the connection's own automatic checkpoints off once it resolves, and back on if `onFailure` is called (the thread
 * died). A checkpoint copies every page written since the last one into the database file and syncs it: run inside
 * a commit on the event loop, as SQLite does by default every thousand pages, it stalls every stream a server is
 * writing for tens of milliseconds.
 */
export async function startWalCheckpointer(
  path: string,
  options: { readonly intervalMs?: number; readonly onFailure: () => void },
): Promise<WalCheckpointer> {
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: { path, intervalMs: options.intervalMs ?? 200 },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`The checkpoint thread exited (${code}).`)));
  });
  worker.removeAllListeners();
  let stopping: Promise<void> | undefined;
  const failed = () => {
    if (stopping === undefined) options.onFailure();
  };
  worker.once('error', failed);
  worker.once('exit', failed);
  // A process that never closes its storage still exits; SQLite recovers the log at the next open.
  worker.unref();
  return {
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        // Held open until the thread has closed its connection, so the caller's close comes after it.
        worker.ref();
        const timer = setTimeout(() => void worker.terminate().finally(resolve), 5_000);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        worker.once('message', done);
        worker.once('exit', done);
        worker.postMessage('stop');
      });
      return stopping;
    },
  };
}
