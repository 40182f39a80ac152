import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildBuiltInSkill, materializeSkills, readSkillBundleFile } from '@toolbus/skills';
import { execute, postJson, upload } from './__fixtures__/interpreter-http.ts';
import { type InterpreterServer, startInterpreterServer } from './interpreter-server.ts';

describe('interpreter: skills mounted read-only in the real sandbox', () => {
  let server: InterpreterServer;
  let bare: InterpreterServer;
  let scratch: string;
  let skillsRoot: string;
  let secretPath: string;
  let skillDocument: string;

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'interpreter-skills-'));
    // Sandboxes run as other uids when the service is root: the skills root must be readable by them.
    await chmod(scratch, 0o755);
    skillsRoot = join(scratch, 'skills');
    const csv = await buildBuiltInSkill({ name: 'csv-analysis' });
    const pdf = await buildBuiltInSkill({ name: 'pdf-reports' });
    await materializeSkills({ skills: [csv, pdf], targetDirectory: skillsRoot });
    skillDocument = (await readSkillBundleFile(csv, 'SKILL.md')).toString('utf8');
    // A host file no sandbox may read, and two hostile layouts an operator's folder might end up with.
    secretPath = join(scratch, 'host-secret.txt');
    await writeFile(secretPath, 'host secret', { mode: 0o644 });
    await symlink('/etc', join(skillsRoot, 'linked-away'));
    const planted = join(skillsRoot, 'planted');
    await mkdir(planted, { mode: 0o755 });
    await writeFile(join(planted, 'SKILL.md'), '---\nname: planted\ndescription: x\n---\n', { mode: 0o644 });
    await symlink(secretPath, join(planted, 'secret.txt'));
    server = await startInterpreterServer({ skillsRoot });
    bare = await startInterpreterServer();
  });
  after(async () => {
    await server.close();
    await bare.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('reports on /health that it has a skills root', async () => {
    const health = await (await fetch(`${server.url}/health`)).json();
    assert.equal(health.skills, true);
    assert.equal(health.version, '1.1.0');
    assert.equal((await (await fetch(`${bare.url}/health`)).json()).skills, false);
  });

  it('shows exactly the requested skills, readable and read-only', async () => {
    const result = await execute(server.url, {
      skills: ['csv-analysis'],
      code: [
        'import os, json',
        "root = '/workspace/managed/skills'",
        'print(json.dumps(sorted(os.listdir(root))))',
        "print(json.dumps(sorted(os.listdir('/workspace/managed'))))",
        "document = open(root + '/csv-analysis/SKILL.md').read()",
        'print(len(document))',
        'def attempt(action):',
        '    try:',
        '        action()',
        "        return 'written'",
        '    except OSError as error:',
        '        return error.errno',
        "print(attempt(lambda: open(root + '/csv-analysis/SKILL.md', 'a').write('x')))",
        "print(attempt(lambda: open(root + '/csv-analysis/new.txt', 'w').write('x')))",
        "print(attempt(lambda: os.mkdir(root + '/fake-skill')))",
        "print(attempt(lambda: open('/workspace/managed/other.txt', 'w').write('x')))",
        "print(attempt(lambda: os.rename(root + '/csv-analysis', '/workspace/stolen')))",
        "open('/workspace/ok.txt', 'w').write('the workspace itself stays writable')",
        // The mount itself is read-only, not only the files' modes: mountinfo's fifth field is the mount point,
        // the sixth its options.
        'for line in open("/proc/self/mountinfo"):',
        '    fields = line.split()',
        "    if fields[4] == root + '/csv-analysis':",
        "        print('ro' in fields[5].split(','))",
      ].join('\n'),
    });
    assert.equal(result.exit_code, 0, result.stderr);
    const [listing, managed, length, append, create, mkdirResult, beside, rename, readOnlyMount] =
      result.stdout.trim().split('\n');
    assert.deepEqual(JSON.parse(listing ?? ''), ['csv-analysis']);
    assert.deepEqual(JSON.parse(managed ?? ''), ['skills']);
    assert.equal(Number(length), skillDocument.length);
    // 13 = EACCES (the files are 0444, the folders 0555), 30 = EROFS (the read-only mounts).
    for (const errno of [append, create]) assert.ok(errno === '13' || errno === '30', errno);
    for (const errno of [mkdirResult, beside]) assert.equal(errno, '30');
    assert.equal(readOnlyMount, 'True');
    assert.notEqual(rename, 'written');
    assert.deepEqual(
      result.files.map((file) => file.path),
      ['ok.txt'],
    );
  });

  it('mounts nothing when no skill is requested', async () => {
    const result = await execute(server.url, {
      code: "import os\nprint(os.path.exists('/workspace/managed'))",
    });
    assert.equal(result.stdout, 'False\n');
  });

  it("runs a skill's script on an uploaded CSV", async () => {
    const fileId = await upload(
      server.url,
      'sales.csv',
      'region,units,price\nnorth,3,2.5\nsouth,5,4\nnorth,7,1\n',
    );
    const result = await execute(server.url, {
      skills: ['csv-analysis'],
      files: [{ path: 'sales.csv', file_id: fileId }],
      code: [
        'import subprocess, sys',
        'completed = subprocess.run(',
        "    [sys.executable, '/workspace/managed/skills/csv-analysis/scripts/profile_csv.py', 'sales.csv', '--json'],",
        '    capture_output=True, text=True)',
        'print(completed.stdout)',
        'print(completed.stderr, file=sys.stderr)',
      ].join('\n'),
    });
    assert.equal(result.exit_code, 0, result.stderr);
    const profile = JSON.parse(result.stdout);
    assert.equal(profile.rows, 3);
    assert.deepEqual(
      profile.columns.map((column: { name: string }) => column.name),
      ['region', 'units', 'price'],
    );
    assert.deepEqual(profile.columns[0].top, { north: 2, south: 1 });
  });

  it('resolves symlinks inside a skill in the sandbox, never on the host', async () => {
    const result = await execute(server.url, {
      skills: ['planted'],
      code: [
        "path = '/workspace/managed/skills/planted/secret.txt'",
        'try:',
        '    print(open(path).read())',
        'except OSError as error:',
        "    print('refused', error.errno)",
      ].join('\n'),
    });
    assert.equal(result.stdout, 'refused 2\n');
    assert.equal(await readFile(secretPath, 'utf8'), 'host secret');
  });

  it('refuses unknown, symlinked, malformed, repeated and too many skills with 400 naming the problem', async () => {
    const cases: Array<{ skills: unknown; code: string; mentions: string }> = [
      { skills: ['no-such-skill'], code: 'skill_not_found', mentions: 'no-such-skill' },
      { skills: ['linked-away'], code: 'skill_not_found', mentions: 'linked-away' },
      { skills: ['../etc'], code: 'invalid_request', mentions: 'skills[0]' },
      { skills: ['Csv'], code: 'invalid_request', mentions: 'skills[0]' },
      { skills: ['csv-analysis', 'csv-analysis'], code: 'invalid_request', mentions: 'repeats' },
      { skills: 'csv-analysis', code: 'invalid_request', mentions: 'array' },
      {
        skills: Array.from({ length: 65 }, (_, index) => `s${index}`),
        code: 'invalid_request',
        mentions: '64',
      },
    ];
    for (const entry of cases) {
      for (const path of ['/v1/execute', '/v1/execute/stream', '/v1/sessions']) {
        const body = path === '/v1/sessions' ? { skills: entry.skills } : { code: '1', skills: entry.skills };
        const { status, json } = await postJson(server.url, path, body);
        assert.equal(status, 400, `${path} ${JSON.stringify(entry.skills)}`);
        assert.equal(json.error.code, entry.code);
        assert.ok(json.error.message.includes(entry.mentions), json.error.message);
      }
    }
    const { status, json } = await postJson(bare.url, '/v1/execute', { code: '1', skills: ['csv-analysis'] });
    assert.equal(status, 400);
    assert.equal(json.error.code, 'skill_not_found');
    assert.match(json.error.message, /csv-analysis/);
  });

  it('refuses input files that the skills mount would hide', async () => {
    const fileId = await upload(server.url, 'x.txt', 'x');
    const { status, json } = await postJson(server.url, '/v1/execute', {
      code: '1',
      skills: ['csv-analysis'],
      files: [{ path: 'managed/x.txt', file_id: fileId }],
    });
    assert.equal(status, 400);
    assert.match(json.error.message, /managed\/x\.txt/);
  });

  it('mounts the skills of a session for each of its commands, which keep their files', async () => {
    const created = await postJson(server.url, '/v1/sessions', { skills: ['pdf-reports'] });
    assert.equal(created.status, 201);
    const id = created.json.session_id as string;
    const first = await postJson(server.url, `/v1/sessions/${id}/bash`, {
      command:
        'ls /workspace/managed/skills; echo kept > notes.txt; touch /workspace/managed/skills/pdf-reports/x 2>/dev/null || echo refused',
    });
    assert.equal(first.json.stdout, 'pdf-reports\nrefused\n');
    const second = await postJson(server.url, `/v1/sessions/${id}/bash`, {
      command: 'cat notes.txt; head -n 2 /workspace/managed/skills/pdf-reports/SKILL.md',
    });
    assert.equal(second.json.stdout, 'kept\n---\nname: pdf-reports\n');
    const deleted = await fetch(`${server.url}/v1/sessions/${id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 204);
  });
});

describe('interpreter: skillsRoot checked at start', () => {
  it('refuses a skills root that does not exist', async () => {
    await assert.rejects(
      startInterpreterServer({ skillsRoot: join(tmpdir(), 'no-such-skills-root-for-toolbus') }),
      /does not exist/,
    );
  });
});
