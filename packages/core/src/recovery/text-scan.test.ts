import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createTextScan, lowerBoundFrom } from './text-scan.ts';

// Every start of `needle` in `text`, ASCII letters of either case matching, found one index at a time.
function positionsOneByOne(text: string, needle: string): number[] {
  const fold = (value: string) => value.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  const lowerNeedle = fold(needle);
  const found: number[] = [];
  for (let at = 0; at + needle.length <= text.length; at++) {
    if (fold(text.slice(at, at + needle.length)) === lowerNeedle) found.push(at);
  }
  return found;
}

const declared = ['<tool_call>', '</tool_call>', '<invoke', '[TOOL_CALLS]', '<｜tool▁sep｜>', '>>>', 'call:'];
// `Action: ```` is searched from its case-free run (: ```) first: the text has it only sometimes.
const asked = [...declared, 'invoke', 'Parameter', 'to=functions.', 'aa', 'ß', 'Action: ```'];

const text = fc
  .array(
    fc.constantFrom(
      ...declared,
      '<TOOL_CALL>',
      'INVOKE',
      'inVoke',
      'parameter',
      'PARAMETER',
      'TO=FUNCTIONS.',
      'ACTION: ```',
      'action:',
      ' ```',
      'aaa',
      'ß',
      'K', // the Kelvin sign: lower-cases to an ASCII `k`, but is no ASCII letter
      '<',
      '>',
      '[',
      ' ',
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

describe('createTextScan', () => {
  it('finds every needle, declared or not, at every place it starts, ASCII case ignored', () => {
    fc.assert(
      fc.property(text, (value) => {
        const scan = createTextScan(value, declared);
        for (const needle of asked) {
          assert.deepEqual([...scan.positions(needle)], positionsOneByOne(value, needle), needle);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('searches forward from any index, also when a search is first used late', () => {
    const value = 'invoke <invoke INVOKE invoke';
    const scan = createTextScan(value, declared);
    const search = scan.search('invoke');
    assert.equal(search.next(10), 15);
    assert.equal(search.next(0), 0);
    assert.equal(search.next(23), -1);
  });
});

describe('lowerBoundFrom', () => {
  it('finds the first entry >= value at or after a cursor, like a plain scan forward from it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 200 }), { maxLength: 60 }),
        fc.integer({ min: 0, max: 220 }),
        fc.nat(),
        (values, value, seed) => {
          const list = [...values].sort((left, right) => left - right);
          let expected = 0;
          while (expected < list.length && list[expected]! < value) expected++;
          // Any cursor the caller may pass: one with every entry before it below `value`.
          const from = expected === 0 ? 0 : seed % (expected + 1);
          assert.equal(lowerBoundFrom(list, value, from), expected);
        },
      ),
    );
  });
});

describe('TextScan tool names', () => {
  const toolDefs = [
    { name: 'get_weather', description: '', parameters: { type: 'object' } },
    { name: 'get', description: '', parameters: { type: 'object' } },
    { name: 'weather', description: '', parameters: { type: 'object' } },
  ];
  const soup = fc
    .array(fc.constantFrom('get_weather', 'get', 'weather', '_', 'x', ' ', 'call:', '>>>'), { maxLength: 30 })
    .map((parts) => parts.join(''));

  it('lists every occurrence of every name, overlapping ones included, in ascending order', () => {
    fc.assert(
      fc.property(soup, (text) => {
        const expected: number[] = [];
        for (const { name } of toolDefs) {
          for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) expected.push(at);
        }
        expected.sort((left, right) => left - right);
        assert.deepEqual([...createTextScan(text).toolNamePositions(toolDefs)!], expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('tells whether a name follows a marker, up to the text already claimed', () => {
    fc.assert(
      fc.property(soup, (text) => {
        const follows = toolDefs.some(({ name }) => text.includes(`call:${name}`));
        assert.equal(createTextScan(text).mayNameToolAfter(toolDefs, 'call:'), follows);
      }),
      { numRuns: 2000 },
    );
    const scan = createTextScan('prose, then call:get claimed');
    scan.recovered.add(10, 28);
    assert.equal(scan.mayNameToolAfter(toolDefs, 'call:'), false);
  });
});
