import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildBuiltInSkill,
  SkillBundleError,
  validateSkillBundle,
  writeNormalisedSkillBundle,
} from '@toolbus/skills';

// An upload endpoint: the request body is the zip, checked as it streams in, and nothing is extracted.
const server = createServer(async (request, response) => {
  try {
    const bundle = await validateSkillBundle(request, {
      perFileMaxBytes: 25 * 2 ** 20,
      totalMaxBytes: 100 * 2 ** 20,
    });
    // bundle.name, .description, .frontMatter, .files [{ path, archivePath, size, sha256 }], .sha256, .findings
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ name: bundle.name, files: bundle.files.length }));
  } catch (error) {
    const refused = error instanceof SkillBundleError; // anything else is a fault of ours, not of the upload
    response.writeHead(refused ? 422 : 500, { 'content-type': 'application/json' });
    response.end(JSON.stringify(refused ? { code: error.code, message: error.message } : {}));
  }
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };

// A skill as its author writes it: a folder with SKILL.md. Zipped here with this package's own writer; your users
// upload the zips they made.
const folder = await mkdtemp(join(tmpdir(), 'skills-'));
await mkdir(join(folder, 'weekly-report'));
await writeFile(
  join(folder, 'weekly-report', 'SKILL.md'),
  '---\nname: weekly-report\ndescription: Writes the weekly sales report from a CSV export.\n---\n\nRead the CSV with pandas.\n',
);
const skill = await buildBuiltInSkill({ name: 'weekly-report', directory: folder });
const chunks: Buffer[] = [];
for await (const chunk of writeNormalisedSkillBundle(skill)) chunks.push(chunk);
// Two uploads: the skill's zip, and the same zip cut short.
const zip = new Uint8Array(Buffer.concat(chunks));
for (const body of [zip, zip.subarray(0, zip.length - 100)]) {
  const answer = await fetch(`http://127.0.0.1:${port}/skills`, { method: 'POST', body });
  console.log(answer.status, await answer.text());
}
server.close();
await rm(folder, { recursive: true });
