import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import type { Tool } from '@toolbus/spec';
import { toolNamePattern } from '@toolbus/spec';
import { createOpenApiTools } from './create-openapi-tools.ts';
import { OpenApiDocumentError } from './openapi-document-error.ts';

// Every tool must be acceptable to every major provider: these are the checks their APIs apply.
const propertyKeyPattern = /^[a-zA-Z0-9_.-]{1,64}$/;
const allowedKeywords = new Set([
  'type',
  'properties',
  'required',
  'items',
  'enum',
  'anyOf',
  'description',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
]);

const require = createRequire(import.meta.url);
const examplesRoot = dirname(require.resolve('@readme/oas-examples/package.json'));
const githubDocument = require.resolve('@octokit/openapi/generated/api.github.com.json');

/** The one example that is invalid on purpose in the collection (an empty `responses` object). */
const knownInvalid = new Set(['3.0/json/openapi-workshop/post.json', '3.0/yaml/openapi-workshop/post.yaml']);

function listDocuments(): string[] {
  const files: string[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(json|ya?ml)$/.test(entry.name)) files.push(path);
    }
  };
  for (const version of ['2.0', '3.0', '3.1']) walk(join(examplesRoot, version));
  return files.sort();
}

/** Operations in a raw document, following local path-item `$ref`s (independently of the code under test). */
function countOperations(raw: Record<string, unknown>): number {
  let operations = 0;
  for (let item of Object.values((raw.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    if (typeof item.$ref === 'string' && item.$ref.startsWith('#/')) {
      let target: unknown = raw;
      for (const part of item.$ref.slice(2).split('/')) {
        target = (target as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      }
      item = target as Record<string, unknown>;
    }
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
      if (item[method]) operations += 1;
    }
  }
  return operations;
}

/** Walks a schema and returns every problem a provider would reject. */
function schemaProblems(schema: unknown, path: string, problems: string[]): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    problems.push(`${path}: not a schema object`);
    return;
  }
  const node = schema as Record<string, unknown>;
  for (const key of Object.keys(node))
    if (!allowedKeywords.has(key)) problems.push(`${path}: keyword ${key}`);
  if (node.type === 'object' && (typeof node.properties !== 'object' || node.properties === null)) {
    problems.push(`${path}: object without properties`);
  }
  if (node.type === 'array' && node.items === undefined) problems.push(`${path}: array without items`);
  if (node.properties !== undefined) {
    for (const [name, child] of Object.entries(node.properties as Record<string, unknown>)) {
      if (!propertyKeyPattern.test(name) && path === '') problems.push(`${path}: property key ${name}`);
      schemaProblems(child, `${path}.${name}`, problems);
    }
    for (const name of (node.required as string[] | undefined) ?? []) {
      if (!(name in (node.properties as object)))
        problems.push(`${path}: required ${name} is not a property`);
    }
  }
  if (node.items !== undefined) schemaProblems(node.items, `${path}[]`, problems);
  if (Array.isArray(node.anyOf)) {
    for (const [index, option] of node.anyOf.entries()) schemaProblems(option, `${path}|${index}`, problems);
  }
}

function assertValidTools(tools: readonly Tool[], label: string): void {
  const names = new Set<string>();
  for (const tool of tools) {
    assert.match(tool.name, toolNamePattern, `${label}: bad name ${tool.name}`);
    assert.ok(!names.has(tool.name.toLowerCase()), `${label}: duplicate name ${tool.name}`);
    names.add(tool.name.toLowerCase());
    const definition = tool.definition();
    assert.equal(definition.name, tool.name);
    assert.ok(
      definition.description.length > 0 && definition.description.length <= 1024,
      `${label}: ${tool.name} description`,
    );
    const serialised = JSON.stringify(definition);
    assert.ok(!serialised.includes('"$ref"'), `${label}: ${tool.name} has a $ref`);
    const parameters = JSON.parse(serialised).parameters as Record<string, unknown>;
    assert.equal(parameters.type, 'object', `${label}: ${tool.name} parameters type`);
    assert.equal(typeof parameters.properties, 'object', `${label}: ${tool.name} parameters properties`);
    for (const key of Object.keys(parameters.properties as object)) {
      assert.match(key, propertyKeyPattern, `${label}: ${tool.name} property key ${key}`);
    }
    const problems: string[] = [];
    schemaProblems(parameters, '', problems);
    assert.deepEqual(problems, [], `${label}: ${tool.name} schema problems`);
  }
}

describe('every document of @readme/oas-examples', () => {
  const documents = listDocuments();
  const counts = { documents: 0, tools: 0, invalid: 0 };

  test('the collection is present (3.0, 3.1 and Swagger 2.0, JSON and YAML)', () => {
    const label = (file: string) => relative(examplesRoot, file);
    assert.ok(documents.length >= 120, `only ${documents.length} documents`);
    for (const prefix of ['2.0/json', '2.0/yaml', '3.0/json', '3.0/yaml', '3.1/json', '3.1/yaml']) {
      assert.ok(
        documents.some((file) => label(file).startsWith(prefix)),
        prefix,
      );
    }
  });

  for (const file of documents) {
    const label = relative(examplesRoot, file);
    test(label, async () => {
      const text = readFileSync(file, 'utf8');
      counts.documents += 1;
      if (knownInvalid.has(label)) {
        await assert.rejects(createOpenApiTools({ document: text, fetch }), (error: unknown) => {
          assert.ok(OpenApiDocumentError.isInstance(error));
          assert.match((error as Error).message, /responses/);
          return true;
        });
        counts.invalid += 1;
        // Without validation the same document still becomes tools.
        const tools = await createOpenApiTools({ document: text, fetch, validate: false });
        assert.ok(tools.length > 0);
        assertValidTools(tools, label);
        return;
      }
      const raw = label.endsWith('.json') ? JSON.parse(text) : undefined;
      const tools = await createOpenApiTools({ document: raw ?? text, fetch });
      if (raw) assert.equal(tools.length, countOperations(raw), `${label}: one tool per operation`);
      assertValidTools(tools, label);
      counts.tools += tools.length;
    });
  }

  test('summary', (context) => {
    context.diagnostic(
      `oas-examples: ${counts.documents} documents, ${counts.tools} tools, ${counts.invalid} invalid on purpose`,
    );
    assert.ok(counts.tools > 300);
  });
});

describe("GitHub's full REST API (@octokit/openapi api.github.com.json)", () => {
  test('every operation becomes a valid tool', async (context) => {
    const text = readFileSync(githubDocument, 'utf8');
    const operations = countOperations(JSON.parse(text));
    const started = performance.now();
    const tools = await createOpenApiTools({ document: text, fetch, namePrefix: 'github' });
    const elapsed = performance.now() - started;
    assert.equal(tools.length, operations);
    assert.ok(operations > 1000);
    assertValidTools(tools, 'github');
    const get = tools.find((tool) => tool.name === 'github_repos_get');
    assert.ok(get, 'repos/get exists under its operationId');
    const parameters = get.definition().parameters as {
      properties: Record<string, unknown>;
      required: string[];
    };
    assert.deepEqual(Object.keys(parameters.properties).sort(), ['owner', 'repo']);
    assert.deepEqual([...parameters.required].sort(), ['owner', 'repo']);
    context.diagnostic(
      `github: ${tools.length} tools in ${elapsed.toFixed(0)} ms (cold: parse, validate, dereference, build)`,
    );
  });
});
