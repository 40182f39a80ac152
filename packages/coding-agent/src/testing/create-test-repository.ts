import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The files and commits of the test repository, so tests can check answers against them. */
export const TEST_REPOSITORY_FILES: Readonly<Record<string, string>> = {
  'README.md': '# tinyhttp\n\nA tiny HTTP server.\n',
  'src/server.ts': [
    "import { createServer } from 'node:http';",
    '',
    'export function startServer(port: number) {',
    "  const server = createServer((_request, response) => response.end('ok'));",
    '  server.listen(port);',
    '  return server;',
    '}',
    '',
  ].join('\n'),
  'src/config.json': '{ "port": 8080 }\n',
};

/** The commit subjects, oldest first. */
export const TEST_REPOSITORY_COMMITS = [
  'initial commit: README',
  'add the server',
  'config: default port 8080',
];

async function git(directory: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd: directory,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Test Author',
      GIT_AUTHOR_EMAIL: 'author@example.test',
      GIT_COMMITTER_NAME: 'Test Author',
      GIT_COMMITTER_EMAIL: 'author@example.test',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: directory,
    },
    maxBuffer: 64 * 1024 * 1024,
    encoding: 'buffer',
  });
  return stdout.toString('utf8');
}

/**
 * Makes a small git repository in `directory` (README, then the server, then its config: three commits) and
 * returns its HEAD commit and a real `git archive --format=tar.gz` of it with one top folder, as GitHub serves it.
 */
export async function createTestRepository(
  directory: string,
): Promise<{ readonly head: string; readonly archive: Buffer }> {
  await mkdir(join(directory, 'src'), { recursive: true });
  await git(directory, 'init', '-q', '-b', 'main');
  const batches = [['README.md'], ['src/server.ts'], ['src/config.json']];
  for (const [index, batch] of batches.entries()) {
    for (const path of batch) await writeFile(join(directory, path), TEST_REPOSITORY_FILES[path] ?? '');
    await git(directory, 'add', ...batch);
    await git(directory, 'commit', '-q', '-m', TEST_REPOSITORY_COMMITS[index] ?? 'commit');
  }
  const head = (await git(directory, 'rev-parse', 'HEAD')).trim();
  const { stdout } = await run('git', ['archive', '--format=tar.gz', '--prefix=tinyhttp-main/', 'HEAD'], {
    cwd: directory,
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { head, archive: stdout };
}
