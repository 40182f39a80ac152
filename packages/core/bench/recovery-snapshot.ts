// The recovery code of an earlier commit, loaded beside the current one so a benchmark can time or score both in
// one run (other processes on a shared machine change the speed of a run; neighbouring runs share it). The
// commit's packages/core/src is unpacked into a temporary directory (see commit-snapshot.ts); the snapshot's own
// imports of `@toolbus/spec` resolve to the workspace package, as the current code's do.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecoveryUnderTest } from '../src/recovery/__fixtures__/real-world-corpus.ts';
import { unpackCommitSnapshot } from './commit-snapshot.ts';

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
  const { commit: sha, directory: target } = unpackCommitSnapshot({
    commit,
    path: 'packages/core/src',
    label: 'recovery',
  });
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
