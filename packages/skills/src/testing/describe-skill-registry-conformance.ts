import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SkillRecord, SkillRegistry } from '../skill-registry.ts';

/** What the skill registry conformance suite needs of a backend. */
export interface SkillRegistryUnderTest {
  /** Names the backend in the suite's titles. */
  readonly name: string;
  /** Opens a fresh, empty registry; `second` opens another connection (process, replica) on the same one. */
  openRegistry(): Promise<{
    readonly registry: SkillRegistry;
    openAnother(): Promise<SkillRegistry>;
    close(): Promise<void>;
  }>;
}

/** A record of a skill named `name`, with every field set. */
export const skillRecord = (name: string, overrides: Partial<SkillRecord> = {}): SkillRecord => ({
  id: `id-${name}`,
  name,
  description: `The ${name} skill.`,
  frontMatter: { name, description: `The ${name} skill.`, license: 'MIT', extra: { version: 3 } },
  sha256: 'ab'.repeat(32),
  blobKey: `skills/${name}/abababab.zip`,
  totalBytes: 90_001,
  fileCount: 7,
  isBuiltIn: false,
  findings: [],
  findingsAccepted: false,
  createdAt: '2026-12-07T00:00:00.123Z',
  ...overrides,
});

/**
 * The skill registry's behaviour, the same on every backend (SQLite, PostgreSQL): records read back as written,
 * taken names refused, replace and delete returning what they replaced, names listed in byte order, and two
 * connections on one registry seeing one set of skills.
 */
export function describeSkillRegistryConformance(backend: SkillRegistryUnderTest): void {
  describe(`${backend.name} skill registry`, () => {
    test('a record reads back as written, every field', async (t) => {
      const { registry, close } = await backend.openRegistry();
      t.after(close);
      const record = skillRecord('résumé-tidy', {
        isBuiltIn: true,
        findings: [{ kind: 'network_exfiltration', file: 'scripts/up.py', line: 12, excerpt: 'post(url) ✓' }],
        findingsAccepted: true,
        totalBytes: 2 ** 40,
        description: 'Tidies a résumé: naïve café prose → crisp bullets ✓ (日本語も).',
      });
      await registry.insert(record);
      assert.deepEqual(await registry.get('résumé-tidy'), record);
      assert.deepEqual(await registry.list(), [record]);
      assert.equal(await registry.get('missing'), undefined);
    });

    test('a taken name is refused as skill_exists, the stored record kept', async (t) => {
      const { registry, close } = await backend.openRegistry();
      t.after(close);
      await registry.insert(skillRecord('only'));
      await assert.rejects(registry.insert(skillRecord('only', { id: 'id-other' })), {
        code: 'skill_exists',
      });
      assert.deepEqual(await registry.list(), [skillRecord('only')]);
    });

    test('replace swaps the record and returns the one it replaced; delete returns the removed one', async (t) => {
      const { registry, close } = await backend.openRegistry();
      t.after(close);
      assert.equal(await registry.replace(skillRecord('pdf')), undefined);
      const newer = skillRecord('pdf', { id: 'id-pdf-2', description: 'Newer.', sha256: 'cd'.repeat(32) });
      assert.deepEqual(await registry.replace(newer), skillRecord('pdf'));
      assert.deepEqual(await registry.get('pdf'), newer);
      assert.deepEqual(await registry.delete('pdf'), newer);
      assert.equal(await registry.delete('pdf'), undefined);
      assert.deepEqual(await registry.list(), []);
    });

    test('the list is sorted by name in byte order', async (t) => {
      const { registry, close } = await backend.openRegistry();
      t.after(close);
      const names = ['zeta', 'Zeta', 'alpha', 'a-b', 'a_b', 'ab', 'éclair', 'e', '日本'];
      for (const name of names) await registry.insert(skillRecord(name, { id: `id-${name}` }));
      const byBytes = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      assert.deepEqual(
        (await registry.list()).map((record) => record.name),
        byBytes,
      );
    });

    test('two connections on one registry see one set of skills; concurrent replaces keep one row', async (t) => {
      const { registry, openAnother, close } = await backend.openRegistry();
      t.after(close);
      const other = await openAnother();
      await registry.insert(skillRecord('shared'));
      assert.deepEqual(await other.get('shared'), skillRecord('shared'));
      await assert.rejects(other.insert(skillRecord('shared', { id: 'id-2' })), { code: 'skill_exists' });
      const replaced = await Promise.all(
        Array.from({ length: 10 }, (_, number) =>
          (number % 2 === 0 ? registry : other).replace(skillRecord('shared', { id: `id-${number}` })),
        ),
      );
      // Each replace saw the record before it: the first one's, then each other's, never two at once.
      const seen = replaced.map((record) => record?.id);
      const final = (await registry.get('shared'))?.id;
      assert.equal(
        new Set([...seen, final]).size,
        11,
        `each id replaced once: ${seen.join(', ')} → ${final}`,
      );
      assert.equal((await other.list()).length, 1);
      await other.delete('shared');
      assert.deepEqual(await registry.list(), []);
    });
  });
}
