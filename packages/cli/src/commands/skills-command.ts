import { createReadStream } from 'node:fs';
import { ServerError, SkillAdmin } from '@toolbus/server';
import { SkillBundleError, type SkillContentFinding } from '@toolbus/skills';
import { omitUndefined } from '@toolbus/spec';
import { loadCliConfig } from '../cli-config.ts';
import type { CliIo } from '../cli-io.ts';
import { EXIT_CODES } from '../exit-codes.ts';
import { reservedSkillNames } from '../load-skills.ts';
import { openConfiguredSkillStores } from '../open-configured-storage.ts';
import { unreadableFileReason } from '../unreadable-file.ts';
import { UsageError } from '../usage-error.ts';
import { actionCommand, defineAction } from './action-command.ts';

/** What the actions share: how to reach the skills' stores and the deployment's validation rules. */
interface SkillsSetting {
  /**
   * Runs `operation` with the shared operations (the server's admin routes call the same `SkillAdmin`) on the
   * stores, which are closed after it.
   */
  withAdmin<Result>(operation: (admin: SkillAdmin) => Promise<Result>): Promise<Result>;
  /** The same rules without stores: validating a bundle stores nothing. */
  readonly validator: SkillAdmin;
}

const usage = `Usage: toolbus skills <action> [options]

  validate <bundle.zip> [--json]                  check a bundle; prints every problem; exit 1 when refused
  add <bundle.zip> [--accept-findings] [--replace]  validate and store a custom skill
  list [--json]                                   list stored skills
  remove <name>                                   delete a custom skill
  seed                                            store (or refresh) the built-in skills

Options: --data-dir <dir> (default $TOOLBUS_DATA_DIR, else <toolbus home>/skills), --max-file-bytes <n>,
         --max-total-bytes <n>
With PostgreSQL storage ($TOOLBUS_STORAGE_URL or storage.url) skills live in that database; the skills of the
--data-dir folder are copied into it once (the folder's registry is then renamed) and the folder is not read again.
Names in $TOOLBUS_RESERVED_SKILL_NAMES (comma-separated) are reserved, like the built-in skills' names.
A running \`toolbus serve\` on the same data folder (or database) uses a change from its next turn on.
`;

const dataDirFlag = {
  name: 'data-dir',
  value: '<dir>',
  description:
    'where skills are stored on SQLite (default $TOOLBUS_DATA_DIR, else <toolbus home>/skills); unused with PostgreSQL storage',
} as const;
const limitFlags = [
  { name: 'max-file-bytes', value: '<n>', description: 'largest file a bundle may hold' },
  { name: 'max-total-bytes', value: '<n>', description: 'largest bundle, all files together' },
] as const;

type SkillsFlags = {
  readonly 'data-dir'?: string;
  readonly 'max-file-bytes'?: string;
  readonly 'max-total-bytes'?: string;
};

/** A size limit given on the command line: a whole number of bytes above 0, or a usage error naming the flag. */
function sizeLimit(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const limit = Number(value);
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw new UsageError({
      message: `--${flag} takes a whole number of bytes above 0, not "${value}".`,
      usage,
    });
  }
  return limit;
}

/**
 * The stores and rules the flags and the configuration say: skills live under the toolbus home unless
 * TOOLBUS_DATA_DIR (or --data-dir) says otherwise; the administrator's reserved names come from the config file
 * and $TOOLBUS_RESERVED_SKILL_NAMES, on top of the built-in skills' names (always reserved).
 */
function skillsSetting(values: SkillsFlags, io: CliIo): SkillsSetting {
  const limits = omitUndefined({
    perFileMaxBytes: sizeLimit('max-file-bytes', values['max-file-bytes']),
    totalMaxBytes: sizeLimit('max-total-bytes', values['max-total-bytes']),
  });
  const config = loadCliConfig({ env: io.env });
  const reservedNames = reservedSkillNames(config, io.env);
  const validation = { ...limits, ...(reservedNames.length > 0 ? { reservedNames } : {}) };
  return {
    async withAdmin(operation) {
      const { registry, blobStore, close } = await openConfiguredSkillStores(
        config,
        io.env,
        values['data-dir'],
        (line) => io.stderr.write(line),
      );
      try {
        return await operation(new SkillAdmin({ registry, blobStore, validation }));
      } finally {
        await close();
      }
    },
    validator: new SkillAdmin({ validation }),
  };
}

/**
 * Runs a skills operation, saying its refusal as the operation words it (exit 1): a file that cannot be read, an
 * unknown or built-in skill, a bundle's problems and findings. Anything else is not a refusal and goes on up.
 */
async function reportingRefusals(
  io: CliIo,
  operation: () => Promise<number>,
  bundlePath?: string,
): Promise<number> {
  try {
    return await operation();
  } catch (error) {
    if (isSystemError(error)) {
      const path = error.path ?? bundlePath;
      io.stderr.write(
        `toolbus skills: ${path === undefined ? error.message : `${path}: ${unreadableFileReason(error)}`}\n`,
      );
      return EXIT_CODES.failure;
    }
    // A refusal of the shared operation (an unknown or built-in skill): its message is meant for people.
    if (ServerError.isInstance(error)) {
      io.stderr.write(`${error.message.replace(/^path\.name: /, '')}\n`);
      return EXIT_CODES.failure;
    }
    if (!SkillBundleError.isInstance(error)) throw error;
    for (const problem of error.problems) io.stderr.write(`error ${problem.code}: ${problem.message}\n`);
    if (error.code === 'findings_not_accepted') {
      writeFindings(error.findings, io.stderr);
      io.stderr.write('Review the findings; re-run with --accept-findings to accept them.\n');
    }
    return EXIT_CODES.failure;
  }
}

const bundleOperand = { first: 'the path of a bundle (.zip)' };

const validateSkill = defineAction({
  name: 'validate',
  forms: ['<bundle.zip> [--json]'],
  summary: 'Checks a skill bundle and prints every problem; exits 1 when it would be refused.',
  operands: bundleOperand,
  flags: [{ name: 'json', description: 'print the findings as JSON' }, dataDirFlag, ...limitFlags],
  examples: [
    'toolbus skills validate ./report-writer.zip',
    'toolbus skills validate ./report-writer.zip --json',
  ],
  run({ operands: [path], values, io }) {
    const { validator } = skillsSetting(values, io);
    return reportingRefusals(
      io,
      () => validate(path as string, { json: values.json === true, admin: validator, io }),
      path,
    );
  },
});

const addSkill = defineAction({
  name: 'add',
  forms: ['<bundle.zip> [--accept-findings] [--replace]'],
  summary: 'Validates a bundle and stores it as a custom skill.',
  operands: bundleOperand,
  flags: [
    { name: 'accept-findings', description: 'store it despite warnings (never despite errors)' },
    { name: 'replace', description: 'replace a stored skill of the same name' },
    dataDirFlag,
    ...limitFlags,
  ],
  examples: ['toolbus skills add ./report-writer.zip', 'toolbus skills add ./report-writer.zip --replace'],
  run({ operands: [path], values, io }) {
    const setting = skillsSetting(values, io);
    return reportingRefusals(
      io,
      async () => {
        const record = await setting.withAdmin((admin) =>
          admin.add(createReadStream(path as string), {
            acceptFindings: values['accept-findings'] === true,
            replace: values.replace === true,
          }),
        );
        io.stdout.write(
          `Added skill "${record.name}": ${record.fileCount} files, ${record.totalBytes} bytes, sha256 ${record.sha256}` +
            `${record.findingsAccepted ? ` (${record.findings.length} finding(s) accepted)` : ''}\n`,
        );
        return EXIT_CODES.ok;
      },
      path,
    );
  },
});

const listSkills = defineAction({
  name: 'list',
  forms: ['[--json]'],
  summary: 'Lists the stored skills.',
  flags: [{ name: 'json', description: 'print them as JSON' }, dataDirFlag],
  examples: ['toolbus skills list'],
  run({ values, io }) {
    const setting = skillsSetting(values, io);
    return reportingRefusals(io, async () => {
      const records = await setting.withAdmin((admin) => admin.list());
      if (values.json === true) {
        io.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
        return EXIT_CODES.ok;
      }
      if (records.length === 0) io.stdout.write('No skills.\n');
      for (const record of records) {
        const flags = [record.isBuiltIn ? 'built-in' : 'custom', `${record.fileCount} files`];
        if (record.findings.length > 0) flags.push(`${record.findings.length} accepted finding(s)`);
        io.stdout.write(`${record.name}  [${flags.join(', ')}]  ${record.description}\n`);
      }
      return EXIT_CODES.ok;
    });
  },
});

const removeSkill = defineAction({
  name: 'remove',
  forms: ['<name>'],
  summary: 'Deletes a custom skill.',
  operands: { first: 'the name of a skill' },
  flags: [dataDirFlag],
  examples: ['toolbus skills remove report-writer'],
  run({ operands: [name], values, io }) {
    const setting = skillsSetting(values, io);
    return reportingRefusals(io, async () => {
      await setting.withAdmin((admin) => admin.remove(name as string));
      io.stdout.write(`Removed skill "${name}".\n`);
      return EXIT_CODES.ok;
    });
  },
});

const seedSkills = defineAction({
  name: 'seed',
  forms: [''],
  summary: 'Stores (or refreshes) the built-in skills.',
  flags: [dataDirFlag],
  examples: ['toolbus skills seed'],
  run({ values, io }) {
    const setting = skillsSetting(values, io);
    return reportingRefusals(io, async () => {
      for (const result of await setting.withAdmin((admin) => admin.seed())) {
        io.stdout.write(`${result.name}: ${result.status}\n`);
      }
      return EXIT_CODES.ok;
    });
  },
});

/** `toolbus skills validate|add|list|remove|seed`: skill bundles, checked and stored as the server's admin does. */
export const skillsCommand = actionCommand({
  name: 'skills',
  synopsis: 'skills <action>          validate, add and list skill bundles',
  usage,
  actions: [validateSkill, addSkill, listSkills, removeSkill, seedSkills],
});

async function validate(
  path: string,
  options: {
    readonly json: boolean;
    readonly admin: SkillAdmin;
    readonly io: CliIo;
  },
): Promise<number> {
  const { io } = options;
  let inspection: Awaited<ReturnType<SkillAdmin['inspect']>>;
  try {
    inspection = await options.admin.inspect(createReadStream(path));
  } catch (error) {
    // A file that cannot be read is a refusal (reportingRefusals says it); anything else the bundle's reader threw.
    if (isSystemError(error)) throw error;
    io.stderr.write(`Cannot read ${path}: ${(error as Error).message}\n`);
    return EXIT_CODES.failure;
  }
  const refused = inspection.problems.length > 0;
  if (options.json) {
    const { bundle, problems, findings } = inspection;
    const summary =
      bundle === undefined ? undefined : { name: bundle.name, sha256: bundle.sha256, files: bundle.files };
    io.stdout.write(`${JSON.stringify({ valid: !refused, bundle: summary, problems, findings }, null, 2)}\n`);
    return refused ? EXIT_CODES.failure : EXIT_CODES.ok;
  }
  for (const problem of inspection.problems) io.stdout.write(`error ${problem.code}: ${problem.message}\n`);
  writeFindings(inspection.findings, io.stdout);
  if (refused) {
    io.stdout.write(`Refused: ${inspection.problems.length} problem(s).\n`);
    return EXIT_CODES.failure;
  }
  const bundle = inspection.bundle!;
  io.stdout.write(
    `Valid skill "${bundle.name}": ${bundle.files.length} files, ${bundle.totalBytes} bytes, sha256 ${bundle.sha256}` +
      `${inspection.findings.length > 0 ? `; ${inspection.findings.length} finding(s) need an admin's explicit acceptance` : ''}\n`,
  );
  return EXIT_CODES.ok;
}

function writeFindings(
  findings: readonly SkillContentFinding[],
  output: { write(text: string): unknown },
): void {
  for (const finding of findings) {
    output.write(`finding ${finding.kind} ${finding.file}:${finding.line}: ${finding.excerpt}\n`);
  }
}

/** A Node.js system error (ENOENT, EACCES...): bad input from the command line, reported rather than thrown. */
function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return (
    error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && 'syscall' in error
  );
}
