import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { forgeZip, skillMarkdown } from './__fixtures__/forge-zip.ts';
import { copyMissingSkills } from './copy-missing-skills.ts';
import { ingestSkillBundle } from './ingest-skill-bundle.ts';
import { openSkillStores } from './open-skill-stores.ts';

async function storesIn(t: TestContext) {
  const directory = mkdtempSync(join(tmpdir(), 'toolbus-copy-skills-'));
  const stores = await openSkillStores(directory);
  t.after(async () => {
    await stores.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return stores;
}

const bundle = (name: string, description: string) =>
  forgeZip([{ name: 'SKILL.md', data: skillMarkdown(name, description) }]);

test('copies the skills the target lacks, bundle and row; keeps the target own; reports an unreadable bundle', async (t) => {
  const [from, to] = [await storesIn(t), await storesIn(t)];
  const alpha = await ingestSkillBundle({ ...from, bundle: bundle('alpha', 'The first.') });
  const beta = await ingestSkillBundle({ ...from, bundle: bundle('beta', 'Its bundle goes missing.') });
  await ingestSkillBundle({ ...from, bundle: bundle('gamma', 'The source edition.') });
  await ingestSkillBundle({ ...to, bundle: bundle('gamma', 'The target edition.') });
  await from.blobStore.delete(beta.blobKey);

  const first = await copyMissingSkills(from, to);
  assert.deepEqual(first, {
    copied: ['alpha'],
    present: ['gamma'],
    failed: [{ name: 'beta', code: 'blob_not_found' }],
  });
  assert.deepEqual(await to.registry.get('alpha'), alpha, 'the row unchanged: id, hash, time');
  assert.equal(await to.blobStore.has(alpha.blobKey), true);
  assert.equal((await to.registry.get('gamma'))?.description, 'The target edition.');
  assert.equal(await to.registry.get('beta'), undefined, 'no row without its bundle');

  const again = await copyMissingSkills(from, to);
  assert.deepEqual(again.copied, []);
  assert.deepEqual(again.present, ['alpha', 'gamma']);
});
