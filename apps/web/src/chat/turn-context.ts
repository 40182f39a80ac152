import { createContext } from 'react';
import type { TurnTree } from '../turn/turn-tree.ts';
import type { CitationMarks } from './render-markdown.ts';

/** What every node of a turn's view reads: the tree (documents, checks, stop) and how to draw citations. */
export interface TurnContextValue {
  readonly tree: TurnTree;
  readonly chatId: string;
  readonly marks: CitationMarks;
  readonly marksVersion: number;
}

/** The enclosing turn of a node view. */
export const TurnContext = createContext<TurnContextValue | undefined>(undefined);
