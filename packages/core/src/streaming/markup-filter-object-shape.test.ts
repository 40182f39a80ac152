import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';

// V8 sizes a class's objects by its first seven instances. When a full GC runs while none of them is alive, the
// sizing sees no fields, and later instances keep only a few fields in the object. Private fields beyond that
// go to a property array of at most 12 (they are keyed stores), after which every new instance of the class is a
// hash table, for the rest of the process: the markup filter, with 16 private fields, ran at half speed inside
// the recovery bench (issue 35). A long-running server meets the same GC timing when its first answers are far
// apart. This runs each streaming class through that timing in a fresh process and checks its objects stay fast.
const probe = `
const { ToolCallMarkupStreamFilter } = await import(${JSON.stringify(new URL('./tool-call-markup-stream-filter.ts', import.meta.url).href)});
const { XmlToolCallStreamFilter } = await import(${JSON.stringify(new URL('./xml-tool-call-stream-filter.ts', import.meta.url).href)});
const { AnswerStreamFilter } = await import(${JSON.stringify(new URL('./answer-stream-filter.ts', import.meta.url).href)});
const { CallStartClassifier } = await import(${JSON.stringify(new URL('./call-start-classifier.ts', import.meta.url).href)});
const { LineCallStartFinder } = await import(${JSON.stringify(new URL('./line-call-start-finder.ts', import.meta.url).href)});
const { ShownTail } = await import(${JSON.stringify(new URL('./framing-context.ts', import.meta.url).href)});
const fast = new Function('object', 'return %HasFastProperties(object)');
// The hazard itself, so that the check cannot pass because the timing no longer provokes it.
const Wide = new Function('return class { ' + Array.from({ length: 17 }, (_, i) => '#f' + i + ' = ' + i + ';').join(' ') + ' get first() { return this.#f0; } }')();
const tools = [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
const makers = {
  ToolCallMarkupStreamFilter: () => new ToolCallMarkupStreamFilter(),
  XmlToolCallStreamFilter: () => new XmlToolCallStreamFilter(),
  AnswerStreamFilter: () => new AnswerStreamFilter({ tools }),
  CallStartClassifier: () => new CallStartClassifier(tools, { holdLimit: 400 }),
  LineCallStartFinder: () => new LineCallStartFinder(new Set([0x67])),
  ShownTail: () => new ShownTail(),
  Wide: () => new Wide(),
};
const result = {};
for (const [name, make] of Object.entries(makers)) {
  // A GC after each of the first nine instances, none of them alive: the sizing completes on an empty tree.
  const use = () => {
    const made = make();
    if (typeof made.process === 'function') made.process('Hello <tool_call>{"name": "x"}</tool_call> world');
    if (typeof made.find === 'function') made.find('Hello\\n- [get_weather(');
  };
  for (let index = 0; index < 9; index++) {
    use();
    globalThis.gc();
  }
  result[name] = fast(make());
}
console.log(JSON.stringify(result));
`;

describe('streaming classes keep fast objects whatever the GC timing', () => {
  it('the markup filter, the answer filter, the call-start classifier, the line finder and its shown tail stay fast', () => {
    const output = execFileSync(
      process.execPath,
      [
        '--conditions=development',
        '--expose-gc',
        '--allow-natives-syntax',
        '--input-type=module',
        '--eval',
        probe,
      ],
      { encoding: 'utf8' },
    );
    const fast = JSON.parse(output.trim().split('\n').at(-1)!) as Record<string, boolean>;
    assert.equal(
      fast.Wide,
      false,
      'the GC timing no longer provokes dictionary mode: this check proves nothing',
    );
    assert.deepEqual(
      { ...fast, Wide: undefined },
      {
        ToolCallMarkupStreamFilter: true,
        XmlToolCallStreamFilter: true,
        AnswerStreamFilter: true,
        CallStartClassifier: true,
        LineCallStartFinder: true,
        ShownTail: true,
        Wide: undefined,
      },
    );
  });
});
