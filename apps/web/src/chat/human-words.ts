/** How a turn ended, as a person reads it (the stop packet's reason is a code for programs). */
const stopWords: Record<string, string> = {
  'user-cancelled': 'Stopped by you',
  'stopping-tool': 'Ended by a tool that finishes the answer',
  'cycle-limit': 'Stopped: it reached the most steps a turn may take',
  error: 'Stopped by an error',
  clarification: 'Waiting for your answer to its question',
  interrupted: 'Interrupted: the server stopped while this ran',
};

/** The words for a turn's stop reason; empty for a turn that simply finished. */
export function stopReasonWords(reason: string): string {
  if (reason === 'finished') return '';
  return stopWords[reason] ?? `Stopped (${reason})`;
}
