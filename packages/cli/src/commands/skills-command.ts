import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { ServerError, SkillAdmin } from '@toolbus/server';
import {
  type BlobStore,
  openSkillStores,
  SkillBundleError,
  type SkillContentFinding,
  type SkillRegistry,
} from '@toolbus/skills';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { closestName } from '../closest-name.ts';
import { reservedSkillNames, skillsDataDirectory } from '../load-skills.ts';
import type { CliCommand } from './cli-command.ts';
import type { CliSubcommand } from './cli-subcommand.ts';

/** Where the command writes, and how it reaches storage. */
export interface SkillsCommandContext {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /**
   * Opens the stores for `add`, `list`, `remove` and `seed`. Default: `--data-dir <dir>` (or the
   * `TOOLBUS_DATA_DIR` environment variable) holding `skills.sqlite` and `blobs/`.
   */
  readonly openStores?: (dataDirectory: string | undefined) => Promise<{
    readonly registry: SkillRegistry;
    readonly blobStore: BlobStore;
  }>;
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

const usage = `Usage: toolbus skills <command> [options]

  validate <bundle.zip> [--json]                  check a bundle; prints every problem; exit 1 when refused
  add <bundle.zip> [--accept-findings] [--replace]  validate and store a custom skill
  list [--json]                                   list stored skills
  remove <name>                                   delete a custom skill
  seed                                            store (or refresh) the built-in skills

Options: --data-dir <dir> (default $TOOLBUS_DATA_DIR, else <toolbus home>/skills), --max-file-bytes <n>,
         --max-total-bytes <n>
Names in $TOOLBUS_RESERVED_SKILL_NAMES (comma-separated) are reserved, like the built-in skills' names.
`;

const dataDirFlag = {
  name: 'data-dir',
  value: '<dir>',
  description: 'where skills are stored (default $TOOLBUS_DATA_DIR, else <toolbus home>/skills)',
};
const limitFlags = [
  { name: 'max-file-bytes', value: '<n>', description: 'largest file a bundle may hold' },
  { name: 'max-total-bytes', value: '<n>', description: 'largest bundle, all files together' },
];

/** The subcommands of `toolbus skills`, each with its own help and flags. */
const skillsSubcommands: readonly CliSubcommand[] = [
  {
    name: 'validate',
    forms: ['<bundle.zip> [--json]'],
    summary: 'Checks a skill bundle and prints every problem; exits 1 when it would be refused.',
    flags: [{ name: 'json', description: 'print the findings as JSON' }, dataDirFlag, ...limitFlags],
    examples: [
      'toolbus skills validate ./report-writer.zip',
      'toolbus skills validate ./report-writer.zip --json',
    ],
  },
  {
    name: 'add',
    forms: ['<bundle.zip> [--accept-findings] [--replace]'],
    summary: 'Validates a bundle and stores it as a custom skill.',
    flags: [
      { name: 'accept-findings', description: 'store it despite warnings (never despite errors)' },
      { name: 'replace', description: 'replace a stored skill of the same name' },
      dataDirFlag,
      ...limitFlags,
    ],
    examples: ['toolbus skills add ./report-writer.zip', 'toolbus skills add ./report-writer.zip --replace'],
  },
  {
    name: 'list',
    forms: ['[--json]'],
    summary: 'Lists the stored skills.',
    flags: [{ name: 'json', description: 'print them as JSON' }, dataDirFlag],
    examples: ['toolbus skills list'],
  },
  {
    name: 'remove',
    forms: ['<name>'],
    summary: 'Deletes a custom skill.',
    flags: [dataDirFlag],
    examples: ['toolbus skills remove report-writer'],
  },
  {
    name: 'seed',
    forms: [''],
    summary: 'Stores (or refreshes) the built-in skills.',
    flags: [dataDirFlag],
    examples: ['toolbus skills seed'],
  },
];

/** `toolbus skills`: skills live under the toolbus home unless TOOLBUS_DATA_DIR (or --data-dir) says otherwise. */
export const skillsCommand: CliCommand = {
  name: 'skills',
  subcommands: skillsSubcommands,
  synopsis: 'skills <command>         validate, add and list skill bundles',
  usage,
  run: (argv: readonly string[], io: CliIo) => {
    const config = loadCliConfig({ env: io.env });
    const reservedNames = reservedSkillNames(config, io.env).join(',');
    return runSkillsCommand(argv, {
      stdout: io.stdout,
      stderr: io.stderr,
      environment: {
        ...io.env,
        TOOLBUS_DATA_DIR: skillsDataDirectory(config, io.env),
        ...(reservedNames === '' ? {} : { TOOLBUS_RESERVED_SKILL_NAMES: reservedNames }),
      },
    });
  },
};

/**
 * The `toolbus skills` command: `validate`, `add`, `list`, `remove`, `seed`. Returns the exit code (0 success,
 * 1 refused or failed, 2 usage error); the CLI mounts it as `toolbus skills ...`.
 */
export async function runSkillsCommand(
  argv: readonly string[],
  context: SkillsCommandContext,
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    context.stderr.write(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, argument] = positionals;
  const limits = {
    ...(values['max-file-bytes'] === undefined ? {} : { perFileMaxBytes: Number(values['max-file-bytes']) }),
    ...(values['max-total-bytes'] === undefined ? {} : { totalMaxBytes: Number(values['max-total-bytes']) }),
  };
  if (Object.values(limits).some((limit) => !Number.isSafeInteger(limit) || limit <= 0)) {
    context.stderr.write(`Size limits must be positive integers.\n\n${usage}`);
    return 2;
  }
  const environment = context.environment ?? process.env;
  const dataDirectory = values['data-dir'] ?? environment.TOOLBUS_DATA_DIR;
  // The administrator's reserved names, on top of the built-in skills' names (which are always reserved).
  const reservedNames = (environment.TOOLBUS_RESERVED_SKILL_NAMES ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const validation = { ...limits, ...(reservedNames.length > 0 ? { reservedNames } : {}) };
  const openStores = context.openStores ?? openDefaultStores;
  // Every operation is the shared one (the server's admin routes call the same SkillAdmin).
  const admin = async () => new SkillAdmin({ ...(await openStores(dataDirectory)), validation });
  try {
    if (command === 'validate' && argument !== undefined && positionals.length === 2) {
      return await validate(argument, {
        json: values.json === true,
        admin: new SkillAdmin({ validation }),
        context,
      });
    }
    if (command === 'add' && argument !== undefined && positionals.length === 2) {
      const record = await (await admin()).add(createReadStream(argument), {
        acceptFindings: values['accept-findings'] === true,
        replace: values.replace === true,
      });
      context.stdout.write(
        `Added skill "${record.name}": ${record.fileCount} files, ${record.totalBytes} bytes, sha256 ${record.sha256}` +
          `${record.findingsAccepted ? ` (${record.findings.length} finding(s) accepted)` : ''}\n`,
      );
      return 0;
    }
    if (command === 'list' && positionals.length === 1) {
      const records = await (await admin()).list();
      if (values.json === true) {
        context.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
        return 0;
      }
      if (records.length === 0) context.stdout.write('No skills.\n');
      for (const record of records) {
        const flags = [record.isBuiltIn ? 'built-in' : 'custom', `${record.fileCount} files`];
        if (record.findings.length > 0) flags.push(`${record.findings.length} accepted finding(s)`);
        context.stdout.write(`${record.name}  [${flags.join(', ')}]  ${record.description}\n`);
      }
      return 0;
    }
    if (command === 'remove' && argument !== undefined && positionals.length === 2) {
      await (await admin()).remove(argument);
      context.stdout.write(`Removed skill "${argument}".\n`);
      return 0;
    }
    if (command === 'seed' && positionals.length === 1) {
      for (const result of await (await admin()).seed()) {
        context.stdout.write(`${result.name}: ${result.status}\n`);
      }
      return 0;
    }
  } catch (error) {
    if (isSystemError(error)) {
      context.stderr.write(`error ${error.code}: ${error.message}\n`);
      return 1;
    }
    // A refusal of the shared operation (an unknown or built-in skill): its message is meant for people.
    if (ServerError.isInstance(error)) {
      context.stderr.write(`${error.message.replace(/^path\.name: /, '')}\n`);
      return 1;
    }
    if (!SkillBundleError.isInstance(error)) throw error;
    for (const problem of error.problems) context.stderr.write(`error ${problem.code}: ${problem.message}\n`);
    if (error.code === 'findings_not_accepted') {
      writeFindings(error.findings, context.stderr);
      context.stderr.write('Review the findings; re-run with --accept-findings to accept them.\n');
    }
    return 1;
  }
  context.stderr.write(`${usageProblem(positionals)}\n\n${usage}`);
  return 2;
}

/** What the command line lacked or had too much of, in one line before the usage (never the usage alone). */
function usageProblem(positionals: readonly string[]): string {
  const [command, ...rest] = positionals;
  if (command === undefined) return 'toolbus skills: name a command (validate, add, list, remove, seed).';
  const argument: Readonly<Record<string, string>> = {
    validate: 'the path of a bundle (.zip)',
    add: 'the path of a bundle (.zip)',
    remove: 'the name of a skill',
  };
  const wanted = argument[command];
  if (wanted !== undefined) {
    return rest.length === 0
      ? `toolbus skills ${command}: give ${wanted}.`
      : `toolbus skills ${command}: give one argument, ${wanted} (got ${rest.length}).`;
  }
  if (command === 'list' || command === 'seed') return `toolbus skills ${command} takes no arguments.`;
  const suggestion = closestName(
    command,
    skillsSubcommands.map((subcommand) => subcommand.name),
  );
  return `toolbus skills: unknown command "${command}"${suggestion ? ` — did you mean "${suggestion}"?` : '.'}`;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean' },
      'accept-findings': { type: 'boolean' },
      replace: { type: 'boolean' },
      'data-dir': { type: 'string' },
      'max-file-bytes': { type: 'string' },
      'max-total-bytes': { type: 'string' },
    },
  });
}

async function validate(
  path: string,
  options: {
    readonly json: boolean;
    readonly admin: SkillAdmin;
    readonly context: SkillsCommandContext;
  },
): Promise<number> {
  const { context } = options;
  let inspection: Awaited<ReturnType<SkillAdmin['inspect']>>;
  try {
    inspection = await options.admin.inspect(createReadStream(path));
  } catch (error) {
    context.stderr.write(`Cannot read ${path}: ${(error as Error).message}\n`);
    return 1;
  }
  const refused = inspection.problems.length > 0;
  if (options.json) {
    const { bundle, problems, findings } = inspection;
    const summary =
      bundle === undefined ? undefined : { name: bundle.name, sha256: bundle.sha256, files: bundle.files };
    context.stdout.write(
      `${JSON.stringify({ valid: !refused, bundle: summary, problems, findings }, null, 2)}\n`,
    );
    return refused ? 1 : 0;
  }
  for (const problem of inspection.problems)
    context.stdout.write(`error ${problem.code}: ${problem.message}\n`);
  writeFindings(inspection.findings, context.stdout);
  if (refused) {
    context.stdout.write(`Refused: ${inspection.problems.length} problem(s).\n`);
    return 1;
  }
  const bundle = inspection.bundle!;
  context.stdout.write(
    `Valid skill "${bundle.name}": ${bundle.files.length} files, ${bundle.totalBytes} bytes, sha256 ${bundle.sha256}` +
      `${inspection.findings.length > 0 ? `; ${inspection.findings.length} finding(s) need an admin's explicit acceptance` : ''}\n`,
  );
  return 0;
}

function writeFindings(
  findings: readonly SkillContentFinding[],
  output: { write(text: string): unknown },
): void {
  for (const finding of findings) {
    output.write(`finding ${finding.kind} ${finding.file}:${finding.line}: ${finding.excerpt}\n`);
  }
}

async function openDefaultStores(dataDirectory: string | undefined) {
  if (dataDirectory === undefined) {
    throw new SkillBundleError({
      code: 'no_data_directory',
      message: 'No data folder: pass --data-dir <dir> or set TOOLBUS_DATA_DIR.',
    });
  }
  return openSkillStores(dataDirectory);
}

/** A Node.js system error (ENOENT, EACCES...): bad input from the command line, reported rather than thrown. */
function isSystemError(error: unknown): error is Error & { code: string } {
  return (
    error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && 'syscall' in error
  );
}
