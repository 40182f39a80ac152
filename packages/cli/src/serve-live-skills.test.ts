import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type ScriptedStep, startScriptedModelServer } from '@toolbus/core/testing';
import { openSqliteSkillRegistry } from '@toolbus/skills';
import { forgeZip, skillMarkdown } from '../../skills/src/__fixtures__/forge-zip.ts';
import { servedPythonTurn, type TurnSeen } from './__fixtures__/served-python-turn.ts';
import { type RunningCli, spawnCli, startCli } from './__fixtures__/spawn-cli.ts';

// `toolbus serve` runs while skills are added, replaced and removed (through its admin API, and by `toolbus skills`
// in another process on the same data folder): each turn that starts afterwards is told about the skills stored
// now and finds their files at /workspace/managed/skills; a turn already running keeps the skills it started with.

const json = { 'content-type': 'application/json' };

/** What one turn asks the scripted model to do: run each code in turn with run_python, then answer. */
interface Script {
  readonly runs: readonly string[];
  /** Wait for the test's go-ahead after the first run's result (the turn is then running, between two runs). */
  readonly hold?: boolean;
}

const printSkills = [
  'import os',
  "root = '/workspace/managed/skills'",
  "print('mounted:', sorted(os.listdir(root)) if os.path.isdir(root) else 'nothing')",
].join('\n');
const printSkill = (name: string) =>
  `${printSkills}\nprint('body:', open('/workspace/managed/skills/${name}/SKILL.md').read().split('---')[2].strip())`;

const skillZip = (name: string, description: string, body: string) =>
  new Uint8Array(forgeZip([{ name: 'SKILL.md', data: skillMarkdown(name, description, `${body}\n`) }]));

describe('toolbus serve: skills changed while it runs reach the next turn', () => {
  let scratch = '';
  let home = '';
  let temporary = '';
  let serve: RunningCli;
  let url = '';
  let turns = 0;
  let release: () => void = () => {};
  let heldAfterFirstRun: Promise<void> = Promise.resolve();
  let reachedHold: () => void = () => {};
  const model = startScriptedModelServer({
    handler: async (request): Promise<ScriptedStep[]> => {
      // The chat title, asked after a new chat's first answer (no tools).
      if (!request.toolNames.includes('run_python')) return [{ type: 'text', text: 'Skills' }];
      const script = JSON.parse(request.messages.find((message) => message.role === 'user')?.text ?? '{}');
      const { runs, hold } = script as Script;
      const done = request.messages.filter((message) => message.role === 'tool').length;
      if (hold && done === 1) {
        reachedHold();
        await heldAfterFirstRun;
      }
      const code = runs[done];
      return code === undefined
        ? [{ type: 'text', text: 'Done.' }]
        : [{ type: 'tool-call', id: `call_${done}`, name: 'run_python', arguments: { code } }];
    },
  });

  /** Runs one turn in a new chat to its end: what the model was told in it, and what its runs printed. */
  const turn = async (script: Script): Promise<TurnSeen> => {
    turns += 1;
    return servedPythonTurn(url, await model, JSON.stringify({ turn: turns, ...script }));
  };

  /** The folders serve materialised skills into (its TMPDIR is this test's own). */
  const skillFolders = async () =>
    (await readdir(temporary)).filter((name) => name.startsWith('toolbus-skills-')).sort();

  const admin = async (method: string, path: string, body?: Uint8Array<ArrayBuffer> | object) => {
    const response = await fetch(`${url}${path}`, {
      method,
      ...(body instanceof Uint8Array
        ? { headers: { 'content-type': 'application/zip' }, body }
        : body === undefined
          ? {}
          : { headers: json, body: JSON.stringify(body) }),
    });
    assert.ok(response.ok, `${method} ${path}: ${response.status} ${await response.clone().text()}`);
    return response.status === 204 ? undefined : ((await response.json()) as Record<string, unknown>);
  };
  const upload = async (zip: Uint8Array<ArrayBuffer>, options: { replace?: boolean } = {}) => {
    const review = (await admin('POST', '/v1/admin/skills/uploads', zip)) as { uploadId: string };
    await admin('POST', `/v1/admin/skills/uploads/${review.uploadId}/accept`, options);
  };

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'toolbus-live-skills-'));
    // Traversable by the sandbox users (other users when the service runs as root): the skills and workspaces live
    // under it.
    await chmod(scratch, 0o711);
    home = join(scratch, 'home');
    temporary = join(scratch, 'tmp');
    await mkdir(temporary, { mode: 0o755 });
    await chmod(temporary, 0o755);
    const server = await model;
    serve = startCli(['serve', '--port', '0'], {
      TOOLBUS_HOME: home,
      TOOLBUS_MODEL: `openai-compatible:${server.url}/v1#scripted`,
      TMPDIR: temporary,
    });
    url = await serve.waitForMatch(/serving on (\S+)/);
  });
  after(async () => {
    release();
    if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
    await serve.exited;
    await (await model).close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('a skill accepted through the admin API is in the next turn: named to the model, its SKILL.md readable', {
    timeout: 120_000,
  }, async () => {
    const before = await turn({ runs: [printSkills] });
    assert.doesNotMatch(before.description, /release-notes/);
    assert.match(before.results[0] ?? '', /mounted: nothing/);

    await upload(
      skillZip('release-notes', 'Writes the release notes of a version.', 'Release notes, first edition.'),
    );
    const after = await turn({ runs: [printSkill('release-notes')] });
    assert.match(after.description, /release-notes: Writes the release notes of a version\./);
    assert.match(after.description, /\/workspace\/managed\/skills\/release-notes\/SKILL\.md/);
    assert.match(after.results[0] ?? '', /mounted: \['release-notes'\]/);
    assert.match(after.results[0] ?? '', /body: Release notes, first edition\./);
  });

  it('a skill added by `toolbus skills add` in another process is in the next turn', {
    timeout: 120_000,
  }, async () => {
    const zip = join(scratch, 'meeting-minutes.zip');
    await writeFile(
      zip,
      skillZip('meeting-minutes', 'Turns a transcript into minutes.', 'Minutes, first edition.'),
    );
    const added = await spawnCli(['skills', 'add', zip], { TOOLBUS_HOME: home });
    assert.equal(added.code, 0, added.stderr);
    const next = await turn({ runs: [printSkill('meeting-minutes')] });
    assert.match(next.description, /meeting-minutes: Turns a transcript into minutes\./);
    assert.match(next.description, /release-notes/);
    assert.match(next.results[0] ?? '', /mounted: \['meeting-minutes', 'release-notes'\]/);
    assert.match(next.results[0] ?? '', /body: Minutes, first edition\./);
  });

  it('a removed skill is gone from the next turn', { timeout: 120_000 }, async () => {
    await admin('DELETE', '/v1/admin/skills/meeting-minutes');
    const next = await turn({ runs: [printSkills] });
    assert.doesNotMatch(next.description, /meeting-minutes/);
    assert.match(next.description, /release-notes/);
    assert.match(next.results[0] ?? '', /mounted: \['release-notes'\]/);
  });

  it('a running turn keeps the skills it started with; their folder goes once the turn ends', {
    timeout: 120_000,
  }, async () => {
    const [started] = await skillFolders();
    assert.equal((await skillFolders()).length, 1, 'one set of skills in use');
    heldAfterFirstRun = new Promise((resolve) => {
      release = resolve;
    });
    const holding = new Promise<void>((resolve) => {
      reachedHold = resolve;
    });
    const running = turn({ runs: [printSkill('release-notes'), printSkill('release-notes')], hold: true });
    await holding;

    // Replaced while that turn runs (between its two runs): the next turn gets the new edition.
    await upload(
      skillZip('release-notes', 'Writes the release notes of a version.', 'Release notes, second edition.'),
      {
        replace: true,
      },
    );
    const next = await turn({ runs: [printSkill('release-notes')] });
    assert.match(next.results[0] ?? '', /body: Release notes, second edition\./);
    const folders = await skillFolders();
    assert.equal(folders.length, 2, 'the running turn still has its own');
    assert.ok(started && folders.includes(started));
    assert.match(
      await readFile(join(temporary, started ?? '', 'release-notes', 'SKILL.md'), 'utf8'),
      /first edition/,
      "the running turn's folder is unchanged",
    );

    // The running turn's second run still reads the edition the turn started with.
    const removedBefore = serve.output().stderr.split('"event":"skills.folder_removed"').length - 1;
    release();
    const kept = await running;
    assert.equal(kept.results.length, 2);
    for (const result of kept.results) assert.match(result, /body: Release notes, first edition\./);
    // Its folder is removed once the turn has ended (serve says so when it removes one).
    await serve.waitForStderrMatch(
      new RegExp(`(?:"event":"skills\\.folder_removed"[^]*){${removedBefore + 1}}`),
    );
    assert.deepEqual(
      await skillFolders(),
      folders.filter((name) => name !== started),
    );
  });

  it('a stored skill that no longer loads is named in the log; turns keep the last skills that loaded', {
    timeout: 120_000,
  }, async () => {
    const registry = await openSqliteSkillRegistry({ database: join(home, 'skills', 'skills.sqlite') });
    const stored = await registry.get('release-notes');
    assert.ok(stored);
    // Its stored bundle changed behind the registry's back; then another skill is added.
    await writeFile(
      join(home, 'skills', 'blobs', stored.blobKey),
      forgeZip([{ name: 'SKILL.md', data: skillMarkdown('release-notes', 'Tampered.', 'Evil.\n') }]),
    );
    await upload(skillZip('meeting-minutes', 'Turns a transcript into minutes.', 'Minutes, second edition.'));
    const kept = await turn({ runs: [printSkill('release-notes')] });
    assert.match(kept.results[0] ?? '', /mounted: \['release-notes'\]/);
    assert.match(kept.results[0] ?? '', /body: Release notes, second edition\./);
    assert.doesNotMatch(kept.description, /meeting-minutes|Tampered/);
    await serve.waitForStderrMatch(
      /"event":"skills\.skill_not_loaded","skill":"release-notes","code":"crc_mismatch"/,
    );

    // The admin removes the skill that no longer loads: the next turn has the rest.
    await admin('DELETE', '/v1/admin/skills/release-notes');
    const next = await turn({ runs: [printSkill('meeting-minutes')] });
    assert.match(next.results[0] ?? '', /mounted: \['meeting-minutes'\]/);
    assert.match(next.results[0] ?? '', /body: Minutes, second edition\./);
    assert.match(next.description, /meeting-minutes: Turns a transcript into minutes\./);
    assert.doesNotMatch(next.description, /release-notes/);
  });

  it('stops with none of the skill folders it wrote while running left behind', {
    timeout: 60_000,
  }, async () => {
    assert.ok((await skillFolders()).length > 0);
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0);
    assert.deepEqual(await skillFolders(), []);
  });
});

/** What the model was told in one turn (run_python's description) and the results of its runs. */
