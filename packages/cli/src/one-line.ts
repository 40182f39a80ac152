/** A message on one line, cut to a readable length (a crashing server's stderr can be a whole stack trace). */
export function oneLine(message: string, maxChars = 300): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > maxChars ? `${line.slice(0, maxChars - 3)}...` : line;
}
