import { createContext } from 'react';
import type { TurnTree } from '../turn/turn-tree.ts';
import type { CitationMarks } from './render-markdown.ts';

/** What every node of a turn's view reads: the tree (documents, checks, stop) and how to draw citations. */
export interface TurnContextValue {
  readonly tree: TurnTree;
  readonly chatId: string;
  readonly marks: CitationMarks;
  readonly marksVersion: number;
  /** Whether tool work starts open: the turn was running when the page showed it (else it reads back closed). */
  readonly workOpen: boolean;
}

/** The enclosing turn of a node view. */
export const TurnContext = createContext<TurnContextValue | undefined>(undefined);
