import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { tools } from '../__fixtures__/tool-definitions.ts';
import { createTextScan } from '../text-scan.ts';
import { hitsNamingTools, invokeHitsNamingTools } from './xml-invoke-tool-call-parser.ts';

// The filter `hitsNamingTools` stands for: a hit counts when a declared tool's name starts between the end of
// `invoke` and the tag's first `>`.
function namingHitsOneByOne(text: string): number[] {
  const scan = createTextScan(text);
  return scan.positions('invoke').filter((hit) => {
    const tagEnd = text.indexOf('>', hit + 6);
    return tagEnd >= 0 && scan.mayNameTool(tools, hit + 6, tagEnd);
  });
}

const tagSoup = fc
  .array(
    fc.constantFrom(
      '<invoke',
      '<INVOKE',
      ' name="',
      'get_weather',
      'get_time',
      '"',
      '>',
      '/>',
      ' ',
      '\n',
      'x',
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

describe('hitsNamingTools', () => {
  it('keeps exactly the invoke hits whose tag names a declared tool, in order', () => {
    fc.assert(
      fc.property(tagSoup, (text) => {
        const scan = createTextScan(text);
        assert.deepEqual(
          [...hitsNamingTools(text, scan.positions('invoke'), scan.toolNamePositions(tools))],
          namingHitsOneByOne(text),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('finds the same hits from the names alone', () => {
    fc.assert(
      fc.property(tagSoup, (text) => {
        const scan = createTextScan(text);
        const names = scan.toolNamePositions(tools)!;
        assert.deepEqual(invokeHitsNamingTools(text, names), [
          ...hitsNamingTools(text, scan.positions('invoke'), names),
        ]);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps every hit when the names were not looked for', () => {
    const hits = [0, 20];
    assert.equal(hitsNamingTools('<invoke name="x">   <invoke name="y">', hits, undefined), hits);
  });
});
