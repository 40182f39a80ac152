/**
 * What a terminal shows at the end of `output`: the rows left after the cursor moves, erasures and redraws the
 * renderer writes (CR, LF, ESC[nA / ESC[nB, ESC[J, ESC[2K, ESC[K; other escapes such as colours are dropped).
 * Lines wrap at `columns`, as a terminal of that width wraps them.
 */
export function terminalScreen(output: string, columns = 80): string {
  const rows: string[] = [''];
  let row = 0;
  let column = 0;
  const put = (character: string) => {
    if (column >= columns) {
      row += 1;
      column = 0;
    }
    while (rows.length <= row) rows.push('');
    const line = (rows[row] ?? '').padEnd(column, ' ');
    rows[row] = line.slice(0, column) + character + line.slice(column + 1);
    column += 1;
  };
  for (let index = 0; index < output.length; index += 1) {
    const character = output[index] as string;
    if (character === '\u001b') {
      const match = /^\u001b\[(\d*)([A-Za-z])/.exec(output.slice(index));
      if (!match) continue;
      index += match[0].length - 1;
      const count = Number(match[1] || '1');
      const [, , command] = match;
      if (command === 'A') row = Math.max(0, row - count);
      else if (command === 'B') row += count;
      else if (command === 'J') {
        rows.splice(row + 1);
        rows[row] = (rows[row] ?? '').slice(0, column);
      } else if (command === 'K') rows[row] = (rows[row] ?? '').slice(0, column);
      // ESC[2K erases the whole row; the cursor stays.
      if (command === 'K' && match[1] === '2') rows[row] = '';
      while (rows.length <= row) rows.push('');
      continue;
    }
    if (character === '\r') column = 0;
    else if (character === '\n') {
      row += 1;
      while (rows.length <= row) rows.push('');
    } else put(character);
  }
  return rows.map((line) => line.trimEnd()).join('\n');
}
