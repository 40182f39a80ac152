/** A one-line progress bar for a terminal; on anything else, a line every 10 % so logs stay short. */
export function createProgressBar(options: {
  readonly write: (text: string) => unknown;
  readonly interactive: boolean;
  readonly width?: number;
}) {
  let lastDecile = -1;
  return {
    update(done: number, total: number, label: string) {
      const ratio = total === 0 ? 1 : done / total;
      if (options.interactive) {
        const width = options.width ?? 30;
        const filled = Math.round(ratio * width);
        const name = label.length > 40 ? `…${label.slice(-39)}` : label;
        options.write(
          `\r\u001b[2K[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${name}`,
        );
      } else {
        const decile = Math.floor(ratio * 10);
        if (decile !== lastDecile) {
          lastDecile = decile;
          options.write(`indexed ${done}/${total} files\n`);
        }
      }
    },
    finish() {
      if (options.interactive) options.write('\r\u001b[2K');
    },
  };
}
