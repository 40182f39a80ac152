// Demo server: `npx node --conditions=development packages/core/src/testing/serve-scripted-model.ts script.json
// [--port 8787] [--host 127.0.0.1]`. The script file is `{ "turns": [ { "steps": [...], "repeat": true,
// "match": { "lastMessageIncludes": "weather" } }, ... ] }` (or a bare array of turns); a turn may also be a bare
// array of steps. Point a client at http://127.0.0.1:<port>/v1 as an OpenAI-compatible or Anthropic base URL.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startScriptedModelServer } from './scripted-model-server.ts';
import type { ScriptedStep, ScriptedTurn } from './scripted-turn.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { port: { type: 'string', default: '8787' }, host: { type: 'string', default: '127.0.0.1' } },
});
const scriptPath = positionals[0];
if (scriptPath === undefined) {
  console.error('usage: serve-scripted-model.ts <script.json> [--port 8787] [--host 127.0.0.1]');
  process.exit(2);
}
const parsed: unknown = JSON.parse(readFileSync(scriptPath, 'utf8'));
const turns = (Array.isArray(parsed) ? parsed : (parsed as { turns?: unknown }).turns) as
  | (ScriptedTurn | ScriptedStep[])[]
  | undefined;
if (!Array.isArray(turns)) {
  console.error(`${scriptPath}: expected { "turns": [...] } or an array of turns`);
  process.exit(2);
}
const server = await startScriptedModelServer({ turns, host: values.host, port: Number(values.port) });
console.log(`scripted model server on ${server.url}/v1 (${turns.length} turns from ${scriptPath})`);
const stop = (): void => {
  server.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
