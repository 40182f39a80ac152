// Runs one scenario of the official MCP conformance suite (`@modelcontextprotocol/conformance`) in its own process and
// reads its verdict, so that each scenario is one node:test case and an expected failure is named with its reason.
// Both the stable release and the newest pre-release are installed (the latter under the npm alias
// `@modelcontextprotocol/conformance-next`); every scenario server and client they start listens on loopback.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Which release of the suite: `stable` is 0.1.x, `next` the newest 0.2.0 pre-release (2026-07-28 scenarios). */
export type ConformanceRelease = 'stable' | 'next';

const packageOf: Record<ConformanceRelease, string> = {
  stable: '@modelcontextprotocol/conformance',
  next: '@modelcontextprotocol/conformance-next',
};

/** The suite's verdict on one scenario. */
export interface ConformanceVerdict {
  readonly passed: number;
  readonly total: number;
  readonly failed: number;
  readonly warnings: number;
  /** The ids of the checks reported FAILURE (`[check-id] FAILURE …` lines), sorted and without repeats. */
  readonly failedChecks: readonly string[];
  /** The ids of the checks reported WARNING. */
  readonly warningChecks: readonly string[];
  readonly exitCode: number | null;
  readonly output: string;
}

/** Options for {@link runConformanceScenario}. */
export interface RunConformanceScenarioOptions {
  readonly release: ConformanceRelease;
  /** `client` runs our client (`command`) against the suite's server; `server` runs the suite's client at `url`. */
  readonly mode: 'client' | 'server';
  readonly scenario: string;
  /** The client command line (client mode): the suite appends the scenario server's URL. */
  readonly command?: string;
  /** The server's MCP URL (server mode). */
  readonly url?: string;
  /** Where the suite writes its results; a temporary directory of the caller's. */
  readonly cwd: string;
  /** Extra environment for the suite process (and so for the client it starts). */
  readonly env?: Readonly<Record<string, string>>;
  /** The suite's own per-scenario client timeout (client mode); its default is 30 s. */
  readonly timeoutMs?: number;
}

const require = createRequire(import.meta.url);

/** The suite's entry point for a release (its `bin` is not on PATH in a workspace). */
export function conformanceSuiteEntry(release: ConformanceRelease): string {
  return join(dirname(require.resolve(`${packageOf[release]}/package.json`)), 'dist', 'index.js');
}

/** The version of the installed release, for reports. */
export function conformanceSuiteVersion(release: ConformanceRelease): string {
  return (require(`${packageOf[release]}/package.json`) as { version: string }).version;
}

const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** The ids of the check lines (`<time> [check-id   ] STATUS description`) with this status. */
function checksWithStatus(text: string, status: 'FAILURE' | 'WARNING'): readonly string[] {
  const ids = new Set<string>();
  for (const match of text.matchAll(/\[([^\]\n]+?)\s*\]\s+(FAILURE|WARNING)\b/g)) {
    if (match[2] === status && match[1] !== undefined) ids.add(match[1]);
  }
  return [...ids].sort();
}

/** Runs the scenario and resolves with the suite's verdict (never rejects on a failed scenario). */
export function runConformanceScenario(options: RunConformanceScenarioOptions): Promise<ConformanceVerdict> {
  const target =
    options.mode === 'client'
      ? ['--command', options.command ?? '', '--timeout', String(options.timeoutMs ?? 30_000)]
      : ['--url', options.url ?? ''];
  const args = [
    conformanceSuiteEntry(options.release),
    options.mode,
    ...target,
    '--scenario',
    options.scenario,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += String(chunk);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('close', (exitCode) => {
      const text = output.replace(ansi, '');
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(text);
      resolve({
        passed: Number(summary?.[1] ?? 0),
        total: Number(summary?.[2] ?? 0),
        failed: summary ? Number(summary[3]) : Number.NaN,
        warnings: Number(summary?.[4] ?? 0),
        failedChecks: checksWithStatus(text, 'FAILURE'),
        warningChecks: checksWithStatus(text, 'WARNING'),
        exitCode,
        output: text,
      });
    });
  });
}

/** A scenario not passed (yet): why, and exactly which checks fail or warn. */
export interface ExpectedConformanceFailure {
  readonly reason: string;
  readonly checks?: readonly string[];
  readonly warnings?: readonly string[];
  /** Checks whose verdict depends on timing (a stream chunk within the suite's wait): either verdict is accepted. */
  readonly timingDependent?: readonly string[];
}

/**
 * Asserts the suite's verdict: exactly the expected checks fail and warn (none when `expected` is absent). A new
 * failure fails the test, and so does a fixed one left on the list, so the list of expected failures stays true.
 */
export function assertConformanceVerdict(
  verdict: ConformanceVerdict,
  expected: ExpectedConformanceFailure | undefined,
): void {
  const tail = verdict.output.slice(-3000);
  assert.ok(verdict.total > 0, `no result line:\n${tail}`);
  const either = new Set(expected?.timingDependent ?? []);
  assert.deepEqual(
    verdict.failedChecks.filter((id) => !either.has(id)),
    [...(expected?.checks ?? [])].sort(),
    tail,
  );
  assert.deepEqual(verdict.warningChecks, [...(expected?.warnings ?? [])].sort(), tail);
  if (expected === undefined) assert.equal(verdict.exitCode, 0, tail);
}
