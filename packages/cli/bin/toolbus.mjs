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
const { runCliProcess } = await import('../dist/run-cli-process.js');
await runCliProcess();
