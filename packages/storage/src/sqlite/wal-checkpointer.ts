import type { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';

/** A background thread that copies a database's write-ahead log into the database file. */
export interface WalCheckpointer {
  /** Checkpoints once more, closes the thread's connection and ends the thread. */
  stop(): Promise<void>;
}

// The worker's code, evaluated as CommonJS in the thread (the same from the sources and from a build). PASSIVE never
// waits for a lock, so the process keeps committing while frames are copied, but never shrinks the log either (at
// high write rates it grew to hundreds of MiB and stayed so): once every frame is copied, a log larger than
// `truncateAboveBytes` is truncated.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const { DatabaseSync } = require('node:sqlite');
const database = new DatabaseSync(workerData.path);
const checkpoint = database.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const truncate = database.prepare('PRAGMA wal_checkpoint(TRUNCATE)');
const walPath = workerData.path + '-wal';
const run = () => {
  try {
    const result = checkpoint.get();
    // Every frame copied: a log grown past the bound is cut to zero. TRUNCATE waits for no one here (no busy
    // timeout): with a reader still on the log it does nothing, and the next interval tries again.
    if (result && result.busy === 0 && result.log === result.checkpointed && result.log > 0) {
      const size = statSync(walPath, { throwIfNoEntry: false })?.size ?? 0;
      if (size > workerData.truncateAboveBytes) truncate.get();
    }
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
  // Nothing left to run: the thread ends.
  parentPort.close();
});
parentPort.postMessage('ready');
`;

/**
 * Checkpoints the WAL of `database` (the file at `path`) from a worker thread every `intervalMs`, the connection's
 * own automatic checkpoints off meanwhile (on again if the thread cannot start, then `undefined`, or dies): run in a
 * commit on the event loop, as SQLite does every thousand pages, a checkpoint stalls every stream for tens of ms.
 */
export async function startWalCheckpointer(
  database: DatabaseSync,
  path: string,
  options: {
    readonly intervalMs?: number;
    /** The log size above which a fully copied log is truncated (default 64 MiB; `Infinity`: never). */
    readonly truncateAboveBytes?: number;
  } = {},
): Promise<WalCheckpointer | undefined> {
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: {
      path,
      intervalMs: options.intervalMs ?? 200,
      truncateAboveBytes: options.truncateAboveBytes ?? 64 * 1024 * 1024,
    },
  });
  const ready = await new Promise<boolean>((resolve) => {
    worker.once('message', () => resolve(true));
    worker.once('error', () => resolve(false));
    worker.once('exit', () => resolve(false));
  });
  if (!ready) return undefined;
  worker.removeAllListeners();
  database.exec('PRAGMA wal_autocheckpoint = 0');
  let stopping: Promise<void> | undefined;
  const failed = () => {
    if (stopping === undefined && database.isOpen) database.exec('PRAGMA wal_autocheckpoint = 1000');
  };
  worker.once('error', failed);
  worker.once('exit', failed);
  // A process that never closes its storage still exits; SQLite recovers the log at the next open.
  worker.unref();
  return {
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        // Held open until the thread has closed its connection and ended, so the caller's close comes after it.
        worker.ref();
        const timer = setTimeout(() => void worker.terminate(), 5_000);
        worker.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        worker.postMessage('stop');
      });
      return stopping;
    },
  };
}
