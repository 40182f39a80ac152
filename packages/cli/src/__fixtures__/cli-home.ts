// A fresh TOOLBUS_HOME for a CLI test, and the real `toolbus config set` to configure it: the set-up most CLI
// tests start with, in one place.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { openStorage, type Storage } from '@toolbus/storage';
import { spawnCli } from './spawn-cli.ts';

/** A model nothing listens for (port 9, discard): for commands that must be refused before a model is tried. */
export const NO_MODEL = 'openai-compatible:http://127.0.0.1:9/v1#nothing';

/** A CLI home; `close` removes it. */
export interface CliHome {
  readonly home: string;
  /** TOOLBUS_HOME and TOOLBUS_MODEL, for {@link spawnCli}. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

/** Creates a home named after `prefix` in the temporary directory, its model `model` (default {@link NO_MODEL}). */
export async function startCliHome(options: { readonly prefix: string; readonly model?: string }): Promise<CliHome> {
  const home = await mkdtemp(join(tmpdir(), options.prefix));
  return {
    home,
    env: { TOOLBUS_HOME: home, TOOLBUS_MODEL: options.model ?? NO_MODEL },
    close: () => rm(home, { recursive: true, force: true }),
  };
}

/**
 * Starts something for the tests of the enclosing `describe` (or file) in its `before` and closes it in its
 * `after`. What it returns reads the started thing's fields, so read them inside hooks and tests: before the start
 * (at the top of a `describe`) a read throws, rather than giving `undefined` to a spawned CLI.
 */
export function useForSuite<T extends { close(): Promise<void> }>(start: () => Promise<T>): Omit<T, 'close'> {
  let current: T | undefined;
  before(async () => {
    current = await start();
  });
  after(async () => {
    await current?.close();
  });
  return new Proxy({} as Omit<T, 'close'>, {
    get(_target, field) {
      if (current === undefined) throw new Error('started in `before`: read it inside a hook or test');
      return Reflect.get(current, field);
    },
  });
}

/**
 * A home for the tests of the enclosing `describe` (or file): made in its `before`, removed in its `after`. Read
 * `home` and `env` inside the tests, once the home exists.
 */
export function useCliHome(options: { readonly prefix: string; readonly model?: string }): Omit<CliHome, 'close'> {
  return useForSuite(() => startCliHome(options));
}

/** Sets each `[key, value]` with the real `toolbus config set`, in order; fails the test when one is refused. */
export async function setCliConfig(
  env: Readonly<Record<string, string>>,
  settings: readonly (readonly [key: string, value: string])[],
): Promise<void> {
  for (const [key, value] of settings) {
    const set = await spawnCli(['config', 'set', key, value], env);
    assert.equal(set.code, 0, `config set ${key}: ${set.stderr}`);
  }
}

/**
 * Adds an MCP server that runs `entry` (with `args`) on this Node over stdio, with the real `toolbus mcp add`;
 * fails the test when it is refused.
 */
export async function addNodeMcpServer(
  env: Readonly<Record<string, string>>,
  name: string,
  entry: string,
  ...args: string[]
): Promise<void> {
  const added = await spawnCli(['mcp', 'add', name, '--yes', '--', process.execPath, entry, ...args], env);
  assert.equal(added.code, 0, added.stderr);
}

/** The refund policy the recovery tests search for: "refunded within 14 days". */
export const REFUND_POLICY = '# Refund Policy\n\nCustomers are refunded within 14 days.\n';

/** Writes `files` (name → text) to docs/ in `home`; resolves to that folder. */
export async function writeCliDocs(home: string, files: Readonly<Record<string, string>>): Promise<string> {
  const docs = join(home, 'docs');
  await mkdir(docs, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(docs, name), text);
  return docs;
}

/** Writes `files` like {@link writeCliDocs} and indexes them with the real `toolbus index`. */
export async function indexCliDocs(
  cli: { readonly home: string; readonly env: Readonly<Record<string, string>> },
  files: Readonly<Record<string, string>>,
): Promise<void> {
  const indexed = await spawnCli(['index', await writeCliDocs(cli.home, files)], cli.env);
  assert.equal(indexed.code, 0, indexed.stderr);
}

/** Opens the home's database for `use` and closes it after: the CLI opens it per run, so a test may in between. */
export async function withHomeStorage<T>(home: string, use: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = await openStorage({ path: join(home, 'toolbus.db') });
  try {
    return await use(storage);
  } finally {
    await storage.close();
  }
}

/** Stores a Streamable HTTP MCP server without auth named `name` at `url` in the home; resolves to its id. */
export async function storeHomeMcpServer(home: string, server: { readonly name: string; readonly url: string }) {
  return withHomeStorage(home, async (storage) => {
    const stored = await storage.mcpServers.create({
      name: server.name,
      endpoint: { transport: 'streamable-http', url: server.url },
      authType: 'none',
    });
    return stored.id;
  });
}
