import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { forgeZip, skillMarkdown } from './__fixtures__/forge-zip.ts';
import { builtInSkillNames } from './built-in-skill-names.ts';
import { createFilesystemBlobStore } from './filesystem-blob-store.ts';
import { readSkillBundleFile } from './read-skill-bundle-file.ts';
import { renderSkillTemplate } from './render-skill-template.ts';
import { buildBuiltInSkill, builtInSkillsDirectory, seedBuiltInSkills } from './seed-built-in-skills.ts';
import { SkillBundleError } from './skill-bundle-error.ts';
import { openSqliteSkillRegistry } from './sqlite-skill-registry.ts';
import { validateSkillBundle } from './validate-skill-bundle.ts';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'skills-seed-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function countFiles(folder: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) count += 1;
  return count;
}

describe('built-in skills', () => {
  it('ships exactly the folders named in builtInSkillNames', async () => {
    assert.deepEqual((await readdir(builtInSkillsDirectory)).sort(), [...builtInSkillNames].sort());
  });

  it('renders templates with the deployment values and ships no template or placeholder', async () => {
    for (const name of builtInSkillNames) {
      const bundle = await buildBuiltInSkill({
        name,
        values: { deploymentName: 'Acme Assist', outputDirectory: '/workspace/out' },
      });
      assert.equal(bundle.name, name);
      assert.ok(bundle.files.every((file) => !file.path.endsWith('.template')));
      const skill = (await readSkillBundleFile(bundle, 'SKILL.md')).toString();
      assert.doesNotMatch(skill, /\{\{|\}\}/);
      assert.match(skill, new RegExp(`/workspace/managed/skills/${name}/scripts/`));
      assert.match(skill, /\/workspace\/out/);
      assert.ok(bundle.files.some((file) => file.path.startsWith('scripts/') && file.path.endsWith('.py')));
      assert.deepEqual(bundle.findings, [], 'built-ins are clean under the content scan');
    }
  });

  it('reserves the built-in names for custom uploads', async () => {
    for (const name of builtInSkillNames) {
      await assert.rejects(
        validateSkillBundle(forgeZip([{ name: 'SKILL.md', data: skillMarkdown(name) }])),
        (error: unknown) => SkillBundleError.isInstance(error) && error.code === 'reserved_skill_name',
      );
    }
  });

  it('seeds idempotently: same content adds no row and no blob; new values replace the old blob', async () => {
    const registry = await openSqliteSkillRegistry({ database: join(directory, 'skills.sqlite') });
    const blobStore = createFilesystemBlobStore({ directory: join(directory, 'blobs') });
    const first = await seedBuiltInSkills({ registry, blobStore });
    assert.deepEqual(
      first,
      builtInSkillNames.map((name) => ({ name, status: 'created' })),
    );
    const records = await registry.list();
    assert.ok(records.every((record) => record.isBuiltIn));
    assert.equal(await countFiles(join(directory, 'blobs')), builtInSkillNames.length);
    const again = await seedBuiltInSkills({ registry, blobStore });
    assert.deepEqual(
      again,
      builtInSkillNames.map((name) => ({ name, status: 'unchanged' })),
    );
    assert.deepEqual(await registry.list(), records);
    assert.equal(await countFiles(join(directory, 'blobs')), builtInSkillNames.length);
    const changed = await seedBuiltInSkills({ registry, blobStore, values: { deploymentName: 'Other' } });
    // Only pdf-reports mentions the deployment name.
    assert.deepEqual(changed, [
      { name: 'csv-analysis', status: 'unchanged' },
      { name: 'pdf-reports', status: 'updated' },
    ]);
    assert.match((await registry.get('pdf-reports'))!.sha256, /^[0-9a-f]{64}$/);
    assert.notEqual(
      (await registry.get('pdf-reports'))!.sha256,
      records.find((r) => r.name === 'pdf-reports')!.sha256,
    );
    assert.equal(await countFiles(join(directory, 'blobs')), builtInSkillNames.length);
  });
});

describe('renderSkillTemplate', () => {
  const values = { deployment_name: 'Acme', skill_directory: '/s/x' };
  it('replaces known variables in one pass', () => {
    assert.equal(
      renderSkillTemplate({ text: 'Hi {{ deployment_name }} at {{skill_directory}}.', values, file: 'f' }),
      'Hi Acme at /s/x.',
    );
  });
  it('fails loudly on unknown variables and leftover braces', () => {
    for (const text of ['{{ secret_value }}', 'a {{ deployment_name } b', 'f"{{x}}"', '{{}}', 'x }}']) {
      assert.throws(
        () => renderSkillTemplate({ text, values, file: 'f' }),
        (error: unknown) => SkillBundleError.isInstance(error) && error.code === 'invalid_template',
        text,
      );
    }
  });
  it('refuses values that could smuggle markup or new lines', () => {
    assert.throws(
      () =>
        renderSkillTemplate({
          text: '{{ deployment_name }}',
          values: { deployment_name: 'a\n---' },
          file: 'f',
        }),
      (error: unknown) => SkillBundleError.isInstance(error) && error.code === 'invalid_template',
    );
  });
});
