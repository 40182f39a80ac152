// internal_search's index at scale: indexing rate and query latency (p50/p95) on a corpus of over 100,000
// chunks, generated here, next to baselines in the same run: plain inserts of the same chunks into a table
// without full-text search, and a LIKE scan for a few of the same queries. `npm run bench -- internal-search`
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openDocumentIndex } from '../src/internal-search/document-index.ts';

const documents = 26_000;
const paragraphsPerDocument = 4;
// A vocabulary with a few frequent and many rare words, so queries have realistic selectivity.
const vocabulary = Array.from({ length: 20_000 }, (_, index) => `w${index.toString(36)}x`);
// mulberry32: a small seeded generator, so every run indexes the same corpus.
let seed = 42;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let value = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
  return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
};
const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)] as string;
const sentence = () => {
  const words = Array.from({ length: 8 + Math.floor(random() * 12) }, word);
  return `${words.join(' ')}.`;
};
const paragraph = () => Array.from({ length: 9 }, sentence).join(' ');

const directory = mkdtempSync(join(tmpdir(), 'toolbus-bench-index-'));
const index = await openDocumentIndex({ path: join(directory, 'index.db') });
const texts = Array.from({ length: documents }, () =>
  Array.from({ length: paragraphsPerDocument }, paragraph).join('\n\n'),
);
const totalBytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);

// One transaction per document, as the indexer writes them.
let started = performance.now();
for (const [offset, text] of texts.entries()) {
  await index.upsert({ sourceId: `bench://doc/${offset}`, title: `Document ${offset}`, text });
}
const indexSeconds = (performance.now() - started) / 1000;
const { chunks } = await index.counts();

// Baseline: the same text, cut the same way, inserted into a plain table (no FTS, no hashing).
const plain = new DatabaseSync(join(directory, 'plain.db'));
plain.exec(
  'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE chunks (id INTEGER PRIMARY KEY, title TEXT, content TEXT)',
);
const insert = plain.prepare('INSERT INTO chunks (title, content) VALUES (?, ?)');
started = performance.now();
plain.exec('BEGIN');
for (const [offset, text] of texts.entries()) {
  for (const part of text.split('\n\n')) insert.run(`Document ${offset}`, part);
}
plain.exec('COMMIT');
const plainSeconds = (performance.now() - started) / 1000;

const queries = Array.from(
  { length: 300 },
  () => `${word()} ${word()} ${vocabulary[Math.floor(random() * vocabulary.length)]}`,
);
const latencies: number[] = [];
let hits = 0;
for (const query of queries) {
  const queryStarted = performance.now();
  hits += (await index.search(query, { limit: 8 })).length;
  latencies.push(performance.now() - queryStarted);
}
latencies.sort((left, right) => left - right);
const like = plain.prepare('SELECT id FROM chunks WHERE content LIKE ? LIMIT 8');
const likeLatencies: number[] = [];
for (const query of queries.slice(0, 20)) {
  const queryStarted = performance.now();
  like.all(`%${query.split(' ')[2]}%`);
  likeLatencies.push(performance.now() - queryStarted);
}
likeLatencies.sort((left, right) => left - right);
const percentile = (values: number[], fraction: number) =>
  values[Math.min(values.length - 1, Math.floor(values.length * fraction))] as number;

console.log('## internal_search index at scale (SQLite FTS5, BM25)\n');
console.log(
  `${documents.toLocaleString('en')} documents, ${chunks.toLocaleString('en')} chunks, ${(totalBytes / 2 ** 20).toFixed(0)} MiB of text.\n`,
);
console.log('| measure | toolbus index | baseline | ratio |');
console.log('|---|---:|---:|---:|');
console.log(
  `| indexing, chunks/s (baseline: plain inserts, no FTS) | ${Math.round(chunks / indexSeconds).toLocaleString('en')} | ${Math.round(chunks / plainSeconds).toLocaleString('en')} | ${(indexSeconds / plainSeconds).toFixed(1)}x the time |`,
);
console.log(
  `| indexing, MiB/s | ${(totalBytes / 2 ** 20 / indexSeconds).toFixed(1)} | ${(totalBytes / 2 ** 20 / plainSeconds).toFixed(1)} | |`,
);
console.log(
  `| query p50, ms (baseline: unranked LIKE scan, first 8 matches of one word) | ${percentile(latencies, 0.5).toFixed(2)} | ${percentile(likeLatencies, 0.5).toFixed(2)} | ${(percentile(latencies, 0.5) / percentile(likeLatencies, 0.5)).toFixed(2)}x the time |`,
);
console.log(
  `| query p95, ms | ${percentile(latencies, 0.95).toFixed(2)} | ${percentile(likeLatencies, 0.95).toFixed(2)} | |`,
);
console.log(
  `\n${queries.length} three-word queries, ${(hits / queries.length).toFixed(1)} hits each on average (limit 8).\n`,
);
await index.close();
plain.close();
rmSync(directory, { recursive: true, force: true });
