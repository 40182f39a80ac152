// The house rules a check can hold, run over the tree by `npm test`:
// - no logging of secret values (header values, keys, tokens): names only;
// - no plain (unguarded) `fetch` in shipped code, outside the places listed below with the reason;
// - the folders of one package import each other one way (no mutual imports between, say, two tools folders);
// - optional fields are passed with `omitUndefined`, not a conditional (docs/decisions/optional-fields.md);
// - comments do not point outside the repo: the reason is said in place, or a docs/ page holds it.
// The third house rule a check holds, no Node-only import in a package root, is package-roots.test.ts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, test } from 'node:test';
import {
  findOptionalFieldConditionals,
  findOutsideReferences,
  findPlainFetch,
  findSecretLogging,
} from './house-rules.ts';
import { importedSpecifiers, isDevFile } from './imports.ts';
import { codeOnly, commentsOf } from './source-text.ts';
import { listSourceFiles, listWorkspaces, repoRoot } from './workspaces.ts';

/** Shipped files that must use the global fetch, and why the guarded fetch does not fit there. */
const plainFetchAllowed: ReadonlyMap<string, string> = new Map([
  [
    'packages/core/src/llm/probe-model-endpoint.ts',
    'the default for probing the operator-configured model endpoint (often loopback: Ollama, vLLM), which the SSRF guard would refuse; callers may pass their own fetch',
  ],
  [
    'packages/client/src/toolbus-client.ts',
    'the default of the browser-side client, which talks only to the toolbus server it is given (the page own origin by default); callers may pass their own fetch',
  ],
  [
    'packages/cli/src/observed-model-fetch.ts',
    'the default under the CLI model client, which talks to the operator-configured model endpoint (often loopback: Ollama, vLLM); no model-chosen URL goes through it',
  ],
  [
    'packages/core/src/net/node-http-fetch.ts',
    'the fallback under the server model fetch, for a request it does not carry itself (a Request object, a streamed body) to the operator-configured model endpoint (often loopback); no model-chosen URL goes through it; callers may pass their own',
  ],
  [
    'packages/core/src/llm/direct-sse-language-model.ts',
    'the default the OpenAI-compatible provider package uses itself when resolveLanguageModel is given no fetch (the fetch it is handed stands in for that default): the operator-configured model endpoint; callers may pass their own',
  ],
  [
    'packages/sandbox/src/code-interpreter-client.ts',
    'the default for reaching the operator-configured sandbox service (usually loopback or a private address); no model-chosen URL goes through it',
  ],
]);

/** Files whose comments may point outside the repo for now, and why. */
const outsideReferencesAllowed: ReadonlyMap<string, string> = new Map([]);

/** Files that may keep an optional field written as a conditional, and why `omitUndefined` does not fit there. */
const optionalConditionalsAllowed: ReadonlyMap<string, string> = new Map([]);

const workspaceFiles = listWorkspaces().flatMap((workspace) => listSourceFiles(workspace.directory));
const allFiles = [...workspaceFiles, ...listSourceFiles('scripts'), ...listSourceFiles('e2e')];
const read = (file: string): string => readFileSync(join(repoRoot, file), 'utf8');

/** Each `found` source breaks the rule exactly once; no `clean` source breaks it. */
function expectFindings(
  rule: (source: string) => readonly unknown[],
  samples: { readonly found: readonly string[]; readonly clean: readonly string[] },
): void {
  for (const source of samples.found) assert.equal(rule(source).length, 1, source);
  for (const source of samples.clean) assert.deepEqual(rule(source), [], source);
}

describe('the rules find what they are for', () => {
  test('comments and strings are blanked, template expressions kept', () => {
    const code = codeOnly(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal, on purpose
      "const a = 'fetch(x)'; // fetch(y)\nconst b = `t ${headers.get('k')} u`; /* fetch */",
    );
    assert.ok(!code.includes('fetch'));
    assert.ok(code.includes('headers.get('));
    assert.equal(code.split('\n').length, 2);
  });

  test('secret logging: header values, tokens and keys are found; names and message text are not', () => {
    const found = [
      "console.log('auth', request.headers.get('authorization'));",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal, on purpose
      'console.warn(`sent ${JSON.stringify(headers)}`);',
      "logger?.warn('token', { value: accessToken });",
      'options.logger.info(apiKey);',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal, on purpose
      'process.stderr.write(`${cookie}\\n`);',
    ];
    const clean = [
      "console.warn('Dropped MCP header', { header: JSON.stringify(rawName), reason });",
      "console.log('header names', [...headers.keys()], headerName, apiKeyEnv);",
      "console.error('the token was refused');",
      "const header = request.headers.get('x'); sendTo(header);",
    ];
    expectFindings(findSecretLogging, { found, clean });
  });

  test('plain fetch: the global fetch is found; injected fetches, members and types are not', () => {
    const found = [
      "await fetch('https://example.test');",
      'const f = options.fetch ?? globalThis.fetch;',
      'const client = make({ fetch: fetch });',
      // undici's own fetch is as unguarded as the global one.
      "import { fetch } from 'undici'; await fetch(url);",
    ];
    const clean = [
      "await options.fetch('https://example.test');",
      'async search(query, { fetch, signal }) { return fetch(query, { signal }); }',
      'readonly fetch?: FetchFunction; type F = typeof globalThis.fetch;',
    ];
    expectFindings(findPlainFetch, { found, clean });
  });
});

describe('the comment and optional-field rules find what they are for', () => {
  test('comments: a run of line comments is one comment; slashes in strings and regular expressions are not', () => {
    const comments = commentsOf(
      "// one\n// two\nconst url = 'http://x'; const re = /\\/\\//; /** three */\nconst a = <b>{/* four */}</b>;",
    );
    assert.deepEqual(
      comments.map((comment) => [comment.line, comment.text]),
      [
        [1, '// one\n// two'],
        [3, '/** three */'],
        [4, '/* four */'],
      ],
    );
  });

  test('outside references: notes, section numbers and a bare Onyx are found; standards and docs pages are not', () => {
    const pages = new Set(['docs/decisions/differences-from-onyx.md']);
    const rule = (source: string) => findOutsideReferences(source, (page) => pages.has(page));
    const found = [
      '// Recovers the calls written as text (seed §5.2).',
      "/** The seed's `MAX_LLM_CYCLES`. */",
      '// The entry points DESIGN.md names.',
      '// as onyx-notes describes',
      '// See peers.md for the other side.',
      "// Onyx's filter, for `<function_calls>` only.",
      '// the bounds of section §4 of the design',
      '// see docs/decisions/no-such-page.md',
    ];
    const clean = [
      '// Headers that describe one hop (RFC 9110 §7.6.1).',
      "// Onyx's service speaks it too (see docs/decisions/differences-from-onyx.md).",
      "const text = 'the seed article § 5';",
      '/** Which built-ins to seed. */',
      '// `toolbus skills seed` stores the built-in skills; the seed command is idempotent.',
      "// Seed-OSS writes <seed:tool_call> blocks; let seed = 42 keeps the generator's seed fixed.",
    ];
    expectFindings(rule, { found, clean });
  });

  test('optional-field conditionals: a field passed when defined (or truthy) is found; computed fields and other tests are not', () => {
    const found = [
      'f({ a, ...(options.b === undefined ? {} : { b: options.b }) });',
      'f({ ...(b !== undefined ? { b } : {}) });',
      'f({ ...(undefined === b ? {} : { renamed: b }) });',
      'f({ ...(user === undefined\n  ? {}\n  : { userId: user.id }) });',
      'f({ ...(options?.c === undefined ? {} : { c: options.c }) });',
      'client.listTools(cursor === undefined ? {} : { cursor });',
      'f({ ...(key ? { key } : {}) });',
      'f({ ...(options.signal ? { signal: options.signal } : {}) });',
      'delay(ms, undefined, signal ? { signal } : {});',
      'f({ ...(scaleOut ? { queue: scaleOut.queue } : {}) });',
    ];
    const clean = [
      'f({ ...omitUndefined({ b: options.b }) });',
      'f({ ...(x === undefined ? {} : { size: Number(x) }) });',
      "f({ ...(body === undefined ? {} : { 'content-type': 'application/json' }) });",
      'f({ ...(x === undefined ? {} : limits[x]) });',
      'f({ ...omitUndefined({ key: key || undefined }) });',
      'f({ ...(resume ? { continues: true } : {}) });',
      'f({ ...(files.length > 0 ? { files } : {}) });',
      "f({ ...(capabilities ? { supportsTools: capabilities.includes('tools') } : {}) });",
    ];
    expectFindings(findOptionalFieldConditionals, { found, clean });
  });
});

/** Each finding of `rule` over `files`, as `file:line: text`; allowed files must still have a finding. */
function problemsOf(
  files: readonly string[],
  rule: (source: string) => readonly { readonly line: number; readonly text: string }[],
  allowed: ReadonlyMap<string, string>,
): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const findings = rule(read(file));
    if (allowed.has(file)) {
      if (findings.length === 0)
        problems.push(`${file} is allowed but has nothing to allow: drop it from the list`);
      continue;
    }
    for (const finding of findings) problems.push(`${file}:${finding.line}: ${finding.text}`);
  }
  return problems;
}

test('no comment points outside the repo: the reason is said in place, or a docs/ page that exists holds it', () => {
  const pageExists = (page: string): boolean => existsSync(join(repoRoot, page));
  const rule = (source: string) => findOutsideReferences(source, pageExists);
  assert.deepEqual(problemsOf(allFiles, rule, outsideReferencesAllowed), []);
});

test('optional fields are passed with omitUndefined, not a conditional (docs/decisions/optional-fields.md)', () => {
  assert.deepEqual(problemsOf(allFiles, findOptionalFieldConditionals, optionalConditionalsAllowed), []);
});

test('no file logs a secret value (header values, keys, tokens): names only', () => {
  const problems = allFiles.flatMap((file) =>
    findSecretLogging(read(file)).map((finding) => `${file}:${finding.line}: ${finding.text}`),
  );
  assert.deepEqual(problems, []);
});

test('shipped code reaches the network only through an injected (guarded) fetch, except the listed places', () => {
  const problems: string[] = [];
  const seen = new Set<string>();
  // Test code and the `testing` subpaths (loopback servers for tests) talk to loopback on purpose.
  for (const file of workspaceFiles.filter((path) => !isDevFile(path) && !path.includes('/testing/'))) {
    const findings = findPlainFetch(read(file));
    if (findings.length === 0) continue;
    seen.add(file);
    if (plainFetchAllowed.has(file)) continue;
    for (const finding of findings) problems.push(`${file}:${finding.line}: plain ${finding.text}`);
  }
  for (const file of plainFetchAllowed.keys()) {
    if (!seen.has(file))
      problems.push(`${file} is allowed a plain fetch but no longer uses one: drop it from the list`);
  }
  assert.deepEqual(problems, []);
});

test('the top-level folders of each package’s src import each other one way', () => {
  const problems: string[] = [];
  for (const { directory } of listWorkspaces()) {
    const source = join(directory, 'src');
    const folderOf = (file: string): string | undefined => {
      const parts = relative(source, file).split('/');
      return parts.length > 1 ? parts[0] : undefined;
    };
    const edges = new Map<string, Set<string>>();
    for (const file of listSourceFiles(source).filter((path) => !isDevFile(path))) {
      const from = folderOf(file);
      if (from === undefined) continue;
      for (const specifier of importedSpecifiers(read(file))) {
        if (!specifier.startsWith('.')) continue;
        const to = folderOf(normalize(join(dirname(file), specifier)));
        if (to === undefined || to === from) continue;
        const targets = edges.get(from) ?? new Set<string>();
        targets.add(to);
        edges.set(from, targets);
      }
    }
    for (const [from, targets] of edges) {
      for (const to of targets) {
        if (from < to && edges.get(to)?.has(from))
          problems.push(`${source}: ${from}/ and ${to}/ import each other`);
      }
    }
  }
  assert.deepEqual(problems, []);
});
