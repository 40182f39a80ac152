#!/usr/bin/env node
// The `toolbus` command. It needs Node.js >= 22 (node:sqlite); say so plainly instead of failing on an import.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `toolbus needs Node.js 22 or newer; this is ${process.version}. Run it through npx or an npm script in the ` +
      'toolbus repository (they use the Node 24 it installs), or install a newer Node.js.\n',
  );
  process.exit(1);
}
// The command runs the built package; a checkout that was installed but not built has no dist/ yet.
const entry = new URL('../dist/run-cli-process.js', import.meta.url);
let runCliProcess;
try {
  ({ runCliProcess } = await import(entry.href));
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || error?.url !== entry.href) throw error;
  process.stderr.write(
    'toolbus is not built yet: run `npm run setup` (or `npm run build`) in the toolbus repository, then try again.\n',
  );
  process.exit(1);
}
await runCliProcess();
