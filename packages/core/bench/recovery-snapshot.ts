// The recovery code of an earlier commit, loaded beside the current one so a benchmark can time or score both in
// one run (other processes on a shared machine change the speed of a run; neighbouring runs share it). The
// commit's packages/core/src is unpacked with `git archive` into a temporary directory; the snapshot's own
// imports of `@toolbus/spec` resolve to the workspace package, as the current code's do.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecoveryUnderTest } from '../src/recovery/__fixtures__/real-world-corpus.ts';

/** The commit the issue-35 work started from (override with RECOVERY_BASELINE=<commit>). */
export const defaultBaselineCommit = '64d48df';

export interface RecoverySnapshot {
  readonly commit: string;
  readonly recovery: RecoveryUnderTest;
  /** The snapshot's modules by path under packages/core/src (`streaming/answer-stream-filter.ts`, …). */
  module<T = Record<string, unknown>>(path: string): Promise<T>;
}

export async function loadRecoverySnapshot(
  commit = process.env.RECOVERY_BASELINE ?? defaultBaselineCommit,
): Promise<RecoverySnapshot> {
  const root = new URL('../../..', import.meta.url).pathname;
  const sha = execFileSync('git', ['rev-parse', '--short=12', commit], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
  // Outside the worktree (Node strips types only outside node_modules); a link to the worktree's node_modules
  // makes `@toolbus/spec` resolve to the workspace package, as the current code's imports do. One directory per
  // worktree: a directory shared between worktrees kept a link to a worktree since removed.
  const worktree = createHash('sha256').update(root).digest('hex').slice(0, 8);
  const target = join(tmpdir(), `toolbus-recovery-${sha}-${worktree}`);
  if (!existsSync(join(target, 'packages'))) {
    mkdirSync(target, { recursive: true });
    if (!existsSync(join(target, 'node_modules')))
      symlinkSync(join(root, 'node_modules'), join(target, 'node_modules'));
    const archive = execFileSync('git', ['archive', sha, 'packages/core/src'], {
      cwd: root,
      maxBuffer: 256 * 2 ** 20,
    });
    execFileSync('tar', ['-x', '-C', target], { input: archive });
  }
  const base = pathToFileURL(join(target, 'packages', 'core', 'src', '/')).href;
  const module = <T>(path: string) => import(new URL(path, base).href) as Promise<T>;
  const filter = await module<typeof import('../src/streaming/answer-stream-filter.ts')>(
    'streaming/answer-stream-filter.ts',
  );
  const profiles = await module<typeof import('../src/recovery/model-profiles.ts')>(
    'recovery/model-profiles.ts',
  );
  const holds = await module<typeof import('../src/recovery/holds-tool-call.ts')>(
    'recovery/holds-tool-call.ts',
  );
  const markers = await module<typeof import('../src/recovery/tool-call-markup-marker.ts')>(
    'recovery/tool-call-markup-marker.ts',
  );
  const registry = await module<typeof import('../src/recovery/tool-call-parser-registry.ts')>(
    'recovery/tool-call-parser-registry.ts',
  );
  const thinking = await module<typeof import('../src/recovery/dialects/thinking-block-parser.ts')>(
    'recovery/dialects/thinking-block-parser.ts',
  );
  const recover = await module<typeof import('../src/turn/recover-step-tool-calls.ts')>(
    'turn/recover-step-tool-calls.ts',
  );
  const placements = await module<typeof import('../src/turn/step-placement.ts')>('turn/step-placement.ts');
  const placement = new placements.StepPlacement();
  const recovery: RecoveryUnderTest = {
    createFilter: (options) => new filter.AnswerStreamFilter(options),
    profileDialects: (model) => profiles.findModelProfile(model)?.dialects,
    recoverStep: (options) =>
      recover.recoverStep({
        ...options,
        step: options.step as Parameters<typeof recover.recoverStep>[0]['step'],
        turn: 0,
        placement,
      }),
    finalAnswer: (answer, rawAnswer, tools) => {
      let final = answer;
      if (
        !final.trim() &&
        rawAnswer.trim() &&
        !holds.holdsToolCall(rawAnswer, tools, registry.defaultToolCallParsers)
      ) {
        final = markers.withoutToolCallMarkupTags(rawAnswer, registry.defaultToolCallMarkupMarkers).trim();
      }
      return thinking.splitTemplateOpenedThinking(final)?.answer ?? final;
    },
  };
  return { commit: sha, recovery, module };
}
