// Runs the CLI from source (tests and development): `node --conditions=development packages/cli/src/cli-entry.ts`.
import { runCliProcess } from './run-cli-process.ts';

await runCliProcess();
