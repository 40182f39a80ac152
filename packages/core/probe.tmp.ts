import { AnswerStreamFilter } from './src/streaming/answer-stream-filter.ts';
import { extractLocatedToolCallsFromText } from './src/recovery/extract-tool-calls-from-text.ts';
import { tools } from './src/recovery/__fixtures__/tool-definitions.ts';
const cases = process.argv.slice(2);
for (const text of cases) {
  for (const size of [1, 1000]) {
    const f = new AnswerStreamFilter({ tools });
    let out = ''; let r = '';
    for (let i = 0; i < text.length; i += size) { out += f.process(text.slice(i, i + size)); r += f.takeReasoning(); }
    out += f.flush(); r += f.takeReasoning();
    console.log(JSON.stringify({ size, out, r }));
  }
  console.log('  calls', JSON.stringify(extractLocatedToolCallsFromText(text, tools)));
}
