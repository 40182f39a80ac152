import assert from 'node:assert/strict';
import { isIPv6 } from 'node:net';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseHostLiteral } from './parse-host-literal.ts';

function addressOf(host: string): string | undefined {
  const parsed = parseHostLiteral(host);
  return parsed.type === 'ipv4' || parsed.type === 'ipv6' ? parsed.address : undefined;
}

describe('parseHostLiteral: IPv4 forms the WHATWG URL parser and inet_aton accept', () => {
  const loopbackForms = [
    '127.0.0.1',
    '2130706433',
    '0177.0.0.1',
    '0177.0000.0000.0001',
    '017700000001',
    '0x7f.1',
    '0x7F.0.0.1',
    '0x7f000001',
    '0x7f.0x0.0x0.0x1',
    '127.1',
    '127.0.1',
    '127.0.0.1.',
    '0x7f.0.1',
    '0177.1',
  ];
  for (const form of loopbackForms) {
    test(`${form} is 127.0.0.1`, () => {
      assert.equal(addressOf(form), '127.0.0.1');
    });
  }

  test('other numeric forms', () => {
    assert.equal(addressOf('0'), '0.0.0.0');
    assert.equal(addressOf('0x'), '0.0.0.0');
    assert.equal(addressOf('4294967295'), '255.255.255.255');
    assert.equal(addressOf('0xa9fea9fe'), '169.254.169.254');
    assert.equal(addressOf('2852039166'), '169.254.169.254');
    assert.equal(addressOf('169.254.43518'), '169.254.169.254');
    assert.equal(addressOf('10.1'), '10.0.0.1');
  });

  test('a host that ends in a number but is no IPv4 address is invalid, not a name', () => {
    for (const host of [
      '1.2.3.4.5',
      '256.0.0.1',
      '4294967296',
      '1.2.3.08',
      '0x7g.1',
      'a.0x',
      'example.123',
      '1.2.65536',
      '1.2.3.256',
    ]) {
      assert.equal(parseHostLiteral(host).type, 'invalid', host);
    }
  });

  test('names stay names, lowercased, without trailing dots', () => {
    assert.deepEqual(parseHostLiteral('Example.COM.'), { type: 'name', name: 'example.com' });
    assert.deepEqual(parseHostLiteral('1.2.3.a'), { type: 'name', name: '1.2.3.a' });
    assert.deepEqual(parseHostLiteral('0x7f.example'), { type: 'name', name: '0x7f.example' });
  });

  test('agrees with the WHATWG URL parser on every IPv4 spelling (property)', () => {
    const part = (value: number, radix: 'dec' | 'oct' | 'hex') =>
      radix === 'dec' ? String(value) : radix === 'oct' ? `0${value.toString(8)}` : `0x${value.toString(16)}`;
    const radix = fc.constantFrom('dec' as const, 'oct' as const, 'hex' as const);
    fc.assert(
      fc.property(
        fc.nat({ max: 0xffffffff }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(radix, { minLength: 4, maxLength: 4 }),
        (value, count, radixes) => {
          const bytes = [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
          const leading = bytes.slice(0, count - 1);
          const rest = bytes.slice(count - 1).reduce((sum, byte) => sum * 256 + byte, 0);
          const host = [...leading, rest]
            .map((piece, index) => part(piece, radixes[index] ?? 'dec'))
            .join('.');
          const whatwg = new URL(`http://${host}/`).hostname;
          assert.equal(addressOf(host), whatwg);
          assert.equal(whatwg, bytes.join('.'));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('refuses exactly the numeric hosts the WHATWG URL parser refuses (property)', () => {
    const alphabet = fc.constantFrom(...'0123456789xXabcdefg.'.split(''));
    fc.assert(
      fc.property(fc.array(alphabet, { minLength: 1, maxLength: 16 }), (characters) => {
        const host = characters.join('');
        if (host.startsWith('.') || host.includes('..')) return;
        let whatwg: string | undefined;
        try {
          whatwg = new URL(`http://${host}/`).hostname;
        } catch {
          whatwg = undefined;
        }
        const parsed = parseHostLiteral(host);
        if (whatwg === undefined) assert.equal(parsed.type, 'invalid', host);
        else if (parsed.type === 'ipv4') assert.equal(parsed.address, whatwg, host);
        else assert.equal(parsed.type, 'name', host);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('parseHostLiteral: IPv6 forms', () => {
  test('bracketed, compressed and full forms canonicalise (RFC 5952)', () => {
    assert.equal(addressOf('[::1]'), '::1');
    assert.equal(addressOf('::1'), '::1');
    assert.equal(addressOf('[0:0:0:0:0:0:0:1]'), '::1');
    assert.equal(addressOf('[::]'), '::');
    assert.equal(addressOf('FE80::AbC'), 'fe80::abc');
    assert.equal(addressOf('2001:db8:0:0:1:0:0:1'), '2001:db8::1:0:0:1');
    assert.equal(addressOf('2001:0db8:0000:0000:0000:0000:0000:0001'), '2001:db8::1');
    assert.equal(addressOf('1:0:1:0:1:0:1:0'), '1:0:1:0:1:0:1:0');
  });

  test('mapped IPv4 in dotted and hex spellings are the same address', () => {
    for (const form of [
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[0:0:0:0:0:ffff:7f00:1]',
      '::FFFF:127.0.0.1',
    ]) {
      const parsed = parseHostLiteral(form);
      assert.equal(parsed.type, 'ipv6', form);
      assert.equal(addressOf(form), '::ffff:7f00:1', form);
      assert.deepEqual(parsed.type === 'ipv6' ? [...parsed.bytes.slice(10)] : [], [255, 255, 127, 0, 0, 1]);
    }
    assert.equal(addressOf(new URL('http://[::ffff:127.0.0.1]/').hostname), '::ffff:7f00:1');
  });

  test('agrees with the WHATWG URL serialiser on every IPv6 address (property)', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        assert.equal(`[${addressOf(address)}]`, new URL(`http://[${address}]/`).hostname, address);
      }),
      { numRuns: 3000 },
    );
  });

  test('accepts exactly what net.isIPv6 accepts, on random near-IPv6 text (property)', () => {
    const character = fc.constantFrom(...'0123456789abcdefABCDEF:::..'.split(''));
    const nearIpv6 = fc.oneof(
      fc.array(character, { minLength: 1, maxLength: 45 }).map((characters) => characters.join('')),
      fc.ipV6().chain((address) =>
        fc
          .tuple(fc.nat({ max: address.length }), fc.nat({ max: address.length }), character)
          .map(([cut, insertAt, extra]) => {
            const shortened = address.slice(0, cut) + address.slice(cut + 1);
            return shortened.slice(0, insertAt) + extra + shortened.slice(insertAt);
          }),
      ),
      fc.ipV6(),
    );
    fc.assert(
      fc.property(nearIpv6, (text) => {
        assert.equal(parseHostLiteral(`[${text}]`).type === 'ipv6', isIPv6(text), text);
      }),
      { numRuns: 20000 },
    );
  });

  test("agrees with the WHATWG URL parser on fast-check's extended IPv4 spellings (property)", () => {
    fc.assert(
      fc.property(fc.ipV4Extended(), (address) => {
        assert.equal(addressOf(address), new URL(`http://${address}/`).hostname, address);
      }),
      { numRuns: 3000 },
    );
  });

  test('zone ids are kept apart from the address, in both spellings', () => {
    const plain = parseHostLiteral('fe80::1%eth0');
    assert.equal(plain.type, 'ipv6');
    assert.equal(plain.type === 'ipv6' ? plain.zone : undefined, 'eth0');
    assert.equal(addressOf('fe80::1%eth0'), 'fe80::1');
    const urlForm = parseHostLiteral('[fe80::1%25eth0]');
    assert.equal(urlForm.type === 'ipv6' ? urlForm.zone : undefined, 'eth0');
    assert.equal(parseHostLiteral('fe80::1%').type, 'invalid');
  });

  test('malformed IPv6 is invalid', () => {
    for (const host of ['[::1', '[1::2::3]', '[12345::]', '[::ffff:127.0.0.256]', '[:::]', '[g::1]']) {
      assert.equal(parseHostLiteral(host).type, 'invalid', host);
    }
  });
});
