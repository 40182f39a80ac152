// What the storage benchmarks share: the stores they measure, this checkout's or, with BENCH_STORAGE_TREE, those of
// another checkout (`npm run bench:pairs -- --before <tree>` runs a bench against both trees' code, so the only
// difference is the code), and the history a benchmark's turns end with.
import { join } from 'node:path';
import type { ChatMessage } from '@toolbus/spec';

/** The checkout whose stores are measured. */
export const storageTree = process.env.BENCH_STORAGE_TREE ?? new URL('../../..', import.meta.url).pathname;

export const { openStorage } = (await import(
  join(storageTree, 'packages/storage/src/open-storage.ts')
)) as typeof import('@toolbus/storage');
export const { openPostgresStorage } = (await import(
  join(storageTree, 'packages/storage-postgres/src/open-postgres-storage.ts')
)) as typeof import('../src/open-postgres-storage.ts');

/** A turn's history as a server writes it: the question, a tool call, its result, the answer. */
export const turnHistory: readonly ChatMessage[] = [
  { role: 'user', content: 'What is the refund policy?' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'c1', name: 'internal_search', arguments: { queries: ['refund policy'] } }],
  },
  { role: 'tool', toolCallId: 'c1', toolName: 'internal_search', content: '[1] Refunds within 30 days.' },
  { role: 'assistant', content: 'Refunds are accepted within 30 days [1].' },
];
