// What a source file imports, read with TypeScript's own scanner (plus lazy `createRequire(...)('x')` loads).
import { isBuiltin } from 'node:module';
import ts from 'typescript';

/** The package a bare specifier names (`@scope/name/sub.js` → `@scope/name`), or undefined for files and builtins. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The module specifiers a source file imports: static, dynamic, `require`, and `createRequire(...)('x')`. */
export function importedSpecifiers(source: string): string[] {
  const found = ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
  for (const match of source.matchAll(/createRequire\([^)]*\)\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    if (match[1] !== undefined) found.push(match[1]);
  }
  return found;
}

/** Test code: test files, fixtures, test and benchmark folders, bundler config. Everything else ships. */
export const isDevFile = (path: string): boolean =>
  /\.test\.ts$/.test(path) ||
  path.includes('/__fixtures__/') ||
  /\/(bench|test)\//.test(path) ||
  /(^|\/)vite\.config\.ts$/.test(path);
