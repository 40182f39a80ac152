import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createCitationAllocator, type PacketSink } from '@toolbus/core';
import { runLlmStep } from '@toolbus/core/step';
import type { ChatMessage, CitationCheck, CitedDocument } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import { checkCitationSupport } from './check-citation-support.ts';
import type { ResearchStepBase } from './clarify-or-plan.ts';
import { DeepResearchError } from './deep-research-error.ts';
import type { DeepResearchLimits } from './deep-research-limits.ts';
import { type DeepResearchPrompts, fillPrompt } from './deep-research-prompts.ts';
import type { ResearchAgentOutcome } from './run-orchestrator.ts';
import { writeFinalReport } from './write-final-report.ts';

/** The report phase's outcome: the answer, its citation verdicts, and the turn the report was written at. */
export interface CheckedReport {
  readonly answer: string;
  readonly citationChecks: CitationCheck[];
  readonly reportTurn: number;
}

/**
 * The run's last phase: the final report from the plan and the agents' findings, cited with their documents; a
 * line naming what went unresearched; then, unless turned off, the citation support check.
 */
export async function writeCheckedReport(options: {
  readonly step: ResearchStepBase;
  readonly sink: PacketSink;
  readonly turn: number;
  readonly context: readonly ChatMessage[];
  readonly plan: string;
  readonly question: string;
  readonly date: string;
  readonly prompts: DeepResearchPrompts;
  readonly limits: DeepResearchLimits;
  readonly agents: readonly ResearchAgentOutcome[];
  readonly documents: ReadonlyMap<number, CitedDocument>;
  /** Undefined when the citation check is off. */
  readonly citationCheckModel: LanguageModelV4 | undefined;
}): Promise<CheckedReport> {
  const { step: common, sink, prompts, limits, documents } = options;
  const findings = options.agents
    .map((agent, index) => `Research ${index + 1}: ${agent.task}\n${agent.report}`)
    .join('\n\n');
  const reportStep = await writeFinalReport({
    turn: options.turn,
    sink,
    ...omitUndefined({ signal: common.signal }),
    runStep: (reportTurn) =>
      runLlmStep({
        ...common,
        citations: createCitationAllocator({ known: documents.values() }),
        citing: true,
        messages: [
          { role: 'system', content: fillPrompt(prompts.finalReport, { date: options.date }) },
          ...options.context,
          {
            role: 'user',
            content: `The research plan:\n${options.plan}\n\nThe research reports:\n\n${findings || '(no research returned findings)'}\n\nWrite the final report for: ${options.question}`,
          },
        ],
        tools: [],
        toolChoice: 'none',
        turn: reportTurn,
        sink,
        announcedDocuments: new Set(),
        stream: { ...common.stream, maxOutputTokens: limits.finalReportTokens },
      }),
  });
  if (reportStep.error) throw reportStep.error;
  if (!reportStep.answer.trim())
    throw new DeepResearchError({ code: 'no_report', message: 'The report step wrote nothing.' });
  const reportTurn = reportStep.nextTurn - 1;
  // The report says what went unresearched in the run's own words, whatever the model made of the failures.
  const unresearched = options.agents.filter((agent) => agent.status === 'failed');
  const gaps =
    unresearched.length === 0
      ? ''
      : `\n\nNot researched, because its research agent failed: ${unresearched.map((agent) => agent.task).join('; ')}.`;
  if (gaps) sink.emitAt({ turn: reportTurn, tab: 0 }, { type: 'message-delta', content: gaps });
  const answer = reportStep.answer + gaps;

  let citationChecks: CitationCheck[] = [];
  if (options.citationCheckModel !== undefined) {
    citationChecks = await checkCitationSupport({
      text: answer,
      documents,
      model: options.citationCheckModel,
      batchSize: limits.citationCheckBatchSize,
      maxCalls: limits.citationCheckMaxCalls,
      prompt: prompts.citationCheck,
      ...omitUndefined({ signal: common.signal, stream: common.stream }),
    });
    sink.emitAt({ turn: reportTurn, tab: 0 }, { type: 'citation-check', checks: citationChecks });
  }
  return { answer, citationChecks, reportTurn };
}
