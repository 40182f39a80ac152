#!/usr/bin/env node
// The package.json a tarball ships, made at pack time: every workspace's `prepack` runs `strip`, its `postpack`
// runs `restore`. In the workspace, the `development` export condition points Node and the tests at the .ts
// sources; in a user's node_modules it must not exist: Node refuses to strip types there
// (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING) and bundlers resolve `development` in dev mode, so a user running
// `node --conditions=development` or `vite` would load sources instead of the build. The pack scripts go too: they
// name this file, which the tarball does not hold. Plain .mjs so npm can run it under any Node it finds.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where `strip` keeps the workspace's own package.json until `restore` puts it back. */
const backupName = 'package.json.workspace';

/** `exports` (or `imports`) without the `development` condition, at any depth. */
function withoutDevelopment(value) {
  if (Array.isArray(value)) return value.map(withoutDevelopment);
  if (value === null || typeof value !== 'object') return value;
  const kept = {};
  for (const [key, inner] of Object.entries(value))
    if (key !== 'development') kept[key] = withoutDevelopment(inner);
  return kept;
}

/** The manifest a tarball ships, from the workspace's one. */
function packedManifest(manifest) {
  const packed = { ...manifest };
  if (packed.exports !== undefined) packed.exports = withoutDevelopment(packed.exports);
  if (packed.imports !== undefined) packed.imports = withoutDevelopment(packed.imports);
  if (packed.scripts !== undefined) {
    const { prepack: _prepack, postpack: _postpack, ...scripts } = packed.scripts;
    if (Object.keys(scripts).length === 0) delete packed.scripts;
    else packed.scripts = scripts;
  }
  return packed;
}

function strip(folder) {
  const manifestPath = join(folder, 'package.json');
  const backupPath = join(folder, backupName);
  // A backup left by a pack that died before postpack is the real manifest: never overwrite it with a stripped one.
  if (existsSync(backupPath))
    throw new Error(
      `${backupPath} exists: a previous pack did not finish; run "node scripts/pack-manifest.mjs restore" in ${folder}`,
    );
  const text = readFileSync(manifestPath, 'utf8');
  writeFileSync(backupPath, text);
  writeFileSync(manifestPath, `${JSON.stringify(packedManifest(JSON.parse(text)), null, 2)}\n`);
}

function restore(folder) {
  const backupPath = join(folder, backupName);
  if (existsSync(backupPath)) renameSync(backupPath, join(folder, 'package.json'));
}

const [command] = process.argv.slice(2);
if (command === 'strip') strip(process.cwd());
else if (command === 'restore') restore(process.cwd());
else {
  process.stderr.write('usage: node pack-manifest.mjs strip|restore (run by npm in the package folder)\n');
  process.exit(2);
}
