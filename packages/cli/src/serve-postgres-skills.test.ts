import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ScriptedStep, startScriptedModelServer } from '@toolbus/core/testing';
import { startTestPostgres, type TestPostgres } from '@toolbus/storage-postgres/testing';
import { forgeZip, skillMarkdown } from '../../skills/src/__fixtures__/forge-zip.ts';
import { servedPythonTurn } from './__fixtures__/served-python-turn.ts';
import { type RunningCli, spawnCli, startCli } from './__fixtures__/spawn-cli.ts';

// Two `toolbus serve` replicas on one PostgreSQL database (each its own home and temporary folder, as on two hosts):
// a skill accepted through one replica's admin API is in the other replica's next turn, named to the model and its
// files mounted; one removed by `toolbus skills` on a third host is gone from both. Before the skills lived in the
// database, each replica had its own registry file and blob folder, and the other replica never saw the skill.

const json = { 'content-type': 'application/json' };
const printSkills = [
  'import os',
  "root = '/workspace/managed/skills'",
  "print('mounted:', sorted(os.listdir(root)) if os.path.isdir(root) else 'nothing')",
  "for name in (sorted(os.listdir(root)) if os.path.isdir(root) else []): print('body:', open(f'{root}/{name}/SKILL.md').read().split('---')[2].strip())",
].join('\n');

describe('toolbus serve replicas on PostgreSQL share one set of skills', () => {
  let cluster: TestPostgres;
  let scratch = '';
  const replicas: { serve: RunningCli; url: string }[] = [];
  let turns = 0;
  const model = startScriptedModelServer({
    handler: async (request): Promise<ScriptedStep[]> => {
      if (!request.toolNames.includes('run_python')) return [{ type: 'text', text: 'Skills' }];
      const done = request.messages.filter((message) => message.role === 'tool').length;
      return done > 0
        ? [{ type: 'text', text: 'Done.' }]
        : [{ type: 'tool-call', id: 'call_0', name: 'run_python', arguments: { code: printSkills } }];
    },
  });
  const secretKey = randomBytes(32).toString('base64');
  let storageUrl = '';
  const hostEnv = async (name: string) => {
    const home = join(scratch, name, 'home');
    const temporary = join(scratch, name, 'tmp');
    await mkdir(temporary, { recursive: true, mode: 0o755 });
    await chmod(join(scratch, name), 0o711);
    await chmod(temporary, 0o755);
    return {
      TOOLBUS_HOME: home,
      TOOLBUS_STORAGE_URL: storageUrl,
      TOOLBUS_SECRET_KEY: secretKey,
      TMPDIR: temporary,
      TOOLBUS_MODEL: `openai-compatible:${(await model).url}/v1#scripted`,
    };
  };

  /** One turn in a new chat on `replica`: run_python's description and what the run printed. */
  const turn = async (replica: number) => {
    const { url } = replicas[replica] ?? assert.fail('no such replica');
    turns += 1;
    return servedPythonTurn(url, await model, `turn ${turns}`);
  };

  before(async () => {
    cluster = await startTestPostgres();
    storageUrl = await cluster.createDatabase();
    scratch = await mkdtemp(join(tmpdir(), 'toolbus-pg-skills-'));
    await chmod(scratch, 0o711);
    for (const name of ['host-a', 'host-b']) {
      const serve = startCli(['serve', '--port', '0'], await hostEnv(name));
      replicas.push({ serve, url: await serve.waitForMatch(/serving on (\S+)/) });
    }
  });
  after(async () => {
    for (const { serve } of replicas) {
      if (serve.child.exitCode === null) serve.child.kill('SIGTERM');
      await serve.exited;
    }
    await (await model).close();
    await cluster?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("a skill accepted through replica A's admin API is in replica B's next turn", {
    timeout: 120_000,
  }, async () => {
    const before = await turn(1);
    assert.match(before.results[0] ?? '', /mounted: nothing/);
    const zip = new Uint8Array(
      forgeZip([
        {
          name: 'SKILL.md',
          data: skillMarkdown('release-notes', 'Writes the release notes of a version.', 'First edition.\n'),
        },
      ]),
    );
    const a = replicas[0]?.url;
    const uploaded = await fetch(`${a}/v1/admin/skills/uploads`, {
      method: 'POST',
      headers: { 'content-type': 'application/zip' },
      body: zip,
    });
    assert.ok(uploaded.ok, await uploaded.clone().text());
    const { uploadId } = (await uploaded.json()) as { uploadId: string };
    const accepted = await fetch(`${a}/v1/admin/skills/uploads/${uploadId}/accept`, {
      method: 'POST',
      headers: json,
      body: '{}',
    });
    assert.ok(accepted.ok, await accepted.clone().text());

    const next = await turn(1);
    assert.match(next.description, /release-notes: Writes the release notes of a version\./);
    assert.match(next.results[0] ?? '', /mounted: \['release-notes'\]/);
    assert.match(next.results[0] ?? '', /body: First edition\./);
    const listed = (await (await fetch(`${replicas[1]?.url}/v1/admin/skills`)).json()) as unknown;
    assert.match(JSON.stringify(listed), /"name":"release-notes"/);
  });

  it('a skill removed by `toolbus skills` on a third host is gone from both replicas', {
    timeout: 120_000,
  }, async () => {
    const removed = await spawnCli(['skills', 'remove', 'release-notes'], await hostEnv('host-c'));
    assert.equal(removed.code, 0, removed.stderr);
    for (const replica of [0, 1]) {
      const next = await turn(replica);
      assert.doesNotMatch(next.description, /release-notes/);
      assert.match(next.results[0] ?? '', /mounted: nothing/);
    }
    // No host keeps skills of its own: no registry file, no blob folder.
    for (const name of ['host-a', 'host-b', 'host-c']) {
      assert.equal(existsSync(join(scratch, name, 'home', 'skills')), false, name);
    }
  });
});

/** What the model was told in one turn (run_python's description) and the results of its runs. */
