// `npm run demo` as a new user sees it: the answer must read like an answer to the question asked.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

const root = new URL('..', import.meta.url).pathname;

function runDemo(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=development', 'scripts/demo.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('npm run demo answers both halves with citations, recovers a text call and writes a chart', async () => {
  const { code, output } = await runDemo();
  assert.equal(code, 0, output);
  const answer = /✓ Internal Search — \d+ documents\n(.+)\n/.exec(output)?.[1] ?? '';
  // Both halves of "How does toolbus run tool calls in parallel, and what happens on a timeout?".
  assert.match(answer, /in parallel[^[]*\[\d+\]/);
  assert.match(answer, /timed-out call[^[]*\[\d+\]/);
  assert.doesNotMatch(answer, /\*\*|`|\bI found nothing\b/, 'no stray Markdown, nothing unanswered');
  assert.match(output, /\nSources:\n {2}\[\d+\]/);
  // The chart call was written as text; it was recovered and run, and its file is on disk.
  assert.match(output, /I will draw it\.\n/);
  assert.doesNotMatch(output, /<tool_call>/, 'the text call is not shown as text');
  assert.match(output, /✓ Code Interpreter/);
  // A chart left by an earlier run is kept: this run's is written beside it (tools-by-source-2.png), and the demo
  // names the one it wrote.
  const written = /Files written:\n {2}(\S+\/toolbus-output\/tools-by-source(?:-\d+)?\.png)\n/.exec(
    output,
  )?.[1];
  assert.ok(written, output);
  assert.ok(output.includes(`The chart is on disk: ${written}\n`), output);
});
