// Writes `skills-release-1b61ff76.sqlite`: a skill registry file as release 1b61ff76 wrote it (its steps recorded in
// `toolbus_skills_migrations`), for sqlite-skill-registry-upgrade.test.ts. Run with that release's registry, from a
// checkout of today's tree (its imports are the registry's neighbours, which did not change):
//   git show 1b61ff76:packages/skills/src/sqlite-skill-registry.ts > packages/skills/src/release-skill-registry.ts
//   node --conditions=development packages/skills/src/__fixtures__/make-skills-release-fixture.ts <out.sqlite>
//   rm packages/skills/src/release-skill-registry.ts
// (that release's createSqliteSkillRegistry is synchronous; today's opener is not, so this file imports the copy.)
import { createSqliteSkillRegistry } from '../release-skill-registry.ts';
import { insertionOrder, releaseRecords } from './skills-release-records.ts';

const path = process.argv[2];
if (path === undefined) throw new Error('usage: make-skills-release-fixture.ts <out.sqlite>');
const registry = createSqliteSkillRegistry({ database: path });
for (const name of insertionOrder) {
  const record = releaseRecords.find((candidate) => candidate.name === name);
  if (record !== undefined) await registry.insert(record);
}
