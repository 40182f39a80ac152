import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkJsonSyntax, JSON_REPAIRABLE, JSON_VALID } from './check-json-syntax.ts';
import { parseJsonTolerant } from './tolerant-json-parse.ts';

const check = (text: string) => checkJsonSyntax(text, 0, text.length);

describe('checkJsonSyntax', () => {
  it('accepts every JSON text (it never rejects what JSON.parse reads)', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        assert.equal(check(text), JSON_VALID, text);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        let parses = true;
        try {
          JSON.parse(text);
        } catch {
          parses = false;
        }
        if (parses) assert.equal(check(text), JSON_VALID, text);
      }),
      { numRuns: 2000 },
    );
  });

  it('sends only what the repair can fix to the repair', () => {
    for (const text of ['{"a": 1,}', '[1, 2,]', '{"a": "x\ny"}', '{"a": [1, 2', '{"a": "cut']) {
      assert.equal(check(text), JSON_REPAIRABLE, text);
      assert.equal(parseJsonTolerant(text).ok, true, text);
    }
  });

  it('finds raw control characters and escapes in strings of any length, at any place', () => {
    const unit = fc.constantFrom(
      'a',
      'é',
      ' ',
      '\n',
      '\t',
      '\u0000',
      '\u001f',
      '\\"',
      '\\\\',
      '\\n',
      '{',
      '｜',
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60, size: 'max' }), fc.boolean(), (units, nested) => {
        const body = units.join('');
        const text = nested ? `[{"k": "${body}"}, "${body}"]` : `{"k": "${body}"}`;
        // Units with a backslash are escapes; every other unit below U+0020 is a raw control character.
        const raw = units.some((value) => value.length === 1 && value.charCodeAt(0) < 0x20);
        assert.equal(check(text), raw ? JSON_REPAIRABLE : JSON_VALID, JSON.stringify(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('stops at the first error of prose in brackets', () => {
    assert.equal(check('{ return x; }'), 2);
    assert.equal(check('[the docs](https://example.org)'), 1);
    assert.equal(check('{"a": 1} and more'), 9);
  });
});
