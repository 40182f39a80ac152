import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** Every source file (tests left out) of the workspace packages and services. */
function sourceFiles(): string[] {
  const files: string[] = [];
  for (const workspace of ['packages', 'services']) {
    const folder = join(repositoryRoot, workspace);
    for (const entry of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
      if (/(^|\/)(node_modules|dist)\//.test(entry) || !entry.endsWith('.ts') || entry.endsWith('.test.ts'))
        continue;
      if (!entry.split('/').includes('src')) continue;
      files.push(join(folder, entry));
    }
  }
  return files;
}

interface DeclaredError {
  readonly className: string;
  readonly parent: string;
  readonly errorName: string | undefined;
  readonly file: string;
}

function declaredErrors(): DeclaredError[] {
  const found: DeclaredError[] = [];
  for (const file of sourceFiles()) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(
      /^export class (\w+)(?:<[^{]*>)? extends (\w+)(?:<[^{]*>)? \{\n([\s\S]*?)^\}$/gm,
    )) {
      const [, className = '', parent = '', body = ''] = match;
      const named = /^ {2}static override readonly errorName(?:: string)? = '(\w+)';$/m.exec(body);
      found.push({ className, parent, errorName: named?.[1], file: relative(repositoryRoot, file) });
    }
  }
  return found;
}

test('every toolbus error class declares its own errorName, equal to its class name and unique', () => {
  const all = declaredErrors();
  const family = new Set(['ToolbusError']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const error of all) {
      if (family.has(error.parent) && !family.has(error.className)) {
        family.add(error.className);
        grew = true;
      }
    }
  }
  const errors = all.filter((error) => family.has(error.parent));
  assert.ok(errors.length >= 28, `found only ${errors.length} toolbus error classes: the scan is broken`);
  for (const error of errors) {
    assert.equal(
      error.errorName,
      error.className,
      `${error.className} in ${error.file} must declare its errorName`,
    );
  }
  const names = errors.map((error) => error.errorName);
  assert.deepEqual(
    names.filter((name, index) => names.indexOf(name) !== index),
    [],
    'two classes share a name',
  );
});
