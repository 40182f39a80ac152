// Runs the CLI from source (tests and development): `node --conditions=development packages/cli/src/cli-entry.ts`.
import { runCli } from './main.ts';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
});
