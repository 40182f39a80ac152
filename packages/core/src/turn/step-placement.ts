import type { Placement, PlacementLevel } from '@toolbus/spec';
import { nestedPlacement } from '@toolbus/spec';

/**
 * Places a loop's packets: at the top level a placement is `(turn, tab)`; inside a sub-agent it is the agent's
 * placement with one more `(turn, tab)` level, so a sub-agent's own tools can run in parallel too.
 */
export class StepPlacement {
  readonly #parent: Placement | undefined;

  constructor(parent?: Placement) {
    this.#parent = parent;
  }

  at(level: PlacementLevel): Placement {
    return this.#parent ? nestedPlacement(this.#parent, level) : { turn: level.turn, tab: level.tab };
  }
}
