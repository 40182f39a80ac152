import type { SkillBundleProblem } from './skill-bundle-error.ts';

/** Thrown by a collector that stops at the first problem; caught by the inspection that owns it. */
export class StopInspection extends Error {}

/**
 * Gathers the problems of one inspection. In fail-fast mode (validation) the first problem ends the inspection at
 * once, so no further bytes are inflated; otherwise (the CLI's `skills validate`) every problem is gathered.
 */
export class ProblemCollector {
  readonly problems: SkillBundleProblem[] = [];
  readonly stopAtFirstProblem: boolean;

  constructor(stopAtFirstProblem: boolean) {
    this.stopAtFirstProblem = stopAtFirstProblem;
  }

  add(problem: SkillBundleProblem): void {
    this.problems.push(problem);
    if (this.stopAtFirstProblem) throw new StopInspection();
  }
}

/** Carries a problem out of a generator that inflates an entry, to the inspection that reports it. */
export class EntryProblem extends Error {
  readonly problem: SkillBundleProblem;

  constructor(problem: SkillBundleProblem) {
    super(problem.message);
    this.problem = problem;
  }
}
