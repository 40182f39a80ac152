import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type AddressCategory, classifyAddress } from './classify-address.ts';

const ipv4Cases: ReadonlyArray<readonly [string, AddressCategory]> = [
  ['93.184.216.34', 'public'],
  ['8.8.8.8', 'public'],
  ['172.32.0.1', 'public'],
  ['100.128.0.1', 'public'],
  ['192.0.0.9', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'shared-address-space'],
  ['100.127.255.255', 'shared-address-space'],
  ['169.254.1.1', 'link-local'],
  ['169.254.169.254', 'cloud-metadata'],
  ['169.254.170.2', 'cloud-metadata'],
  ['100.100.100.200', 'cloud-metadata'],
  ['168.63.129.16', 'cloud-metadata'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'reserved'],
  ['192.0.0.1', 'reserved'],
  ['192.88.99.1', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
];

const ipv6Cases: ReadonlyArray<readonly [string, AddressCategory]> = [
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd12:3456::1', 'unique-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['fd00:ec2::254', 'cloud-metadata'],
  ['fd20:ce::254', 'cloud-metadata'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'reserved'],
  ['100::1', 'reserved'],
  ['5f00::1', 'reserved'],
  ['4000::1', 'reserved'],
  ['::2', 'reserved'],
];

describe('classifyAddress', () => {
  for (const [address, category] of [...ipv4Cases, ...ipv6Cases]) {
    test(`${address} is ${category}`, () => {
      assert.equal(classifyAddress(address).category, category);
    });
  }

  test('non-canonical IPv4 spellings classify like the address they denote', () => {
    assert.equal(classifyAddress('0x7f.1').category, 'loopback');
    assert.equal(classifyAddress('2852039166').category, 'cloud-metadata');
    assert.equal(classifyAddress('0251.0376.0251.0376').category, 'cloud-metadata');
    assert.equal(classifyAddress('0x7f.1').address, '127.0.0.1');
  });

  const embedded: ReadonlyArray<readonly [string, AddressCategory, string, string]> = [
    ['::ffff:127.0.0.1', 'loopback', 'ipv4-mapped', '127.0.0.1'],
    ['[::ffff:7f00:1]', 'loopback', 'ipv4-mapped', '127.0.0.1'],
    ['::ffff:169.254.169.254', 'cloud-metadata', 'ipv4-mapped', '169.254.169.254'],
    ['::ffff:10.0.0.1', 'private', 'ipv4-mapped', '10.0.0.1'],
    ['::ffff:8.8.8.8', 'public', 'ipv4-mapped', '8.8.8.8'],
    ['::ffff:0:7f00:1', 'loopback', 'ipv4-translated', '127.0.0.1'],
    ['::127.0.0.1', 'loopback', 'ipv4-compatible', '127.0.0.1'],
    ['::a9fe:a9fe', 'cloud-metadata', 'ipv4-compatible', '169.254.169.254'],
    ['::8.8.8.8', 'reserved', 'ipv4-compatible', '8.8.8.8'],
    ['64:ff9b::7f00:1', 'loopback', 'nat64', '127.0.0.1'],
    ['64:ff9b::169.254.169.254', 'cloud-metadata', 'nat64', '169.254.169.254'],
    ['64:ff9b::a00:1', 'private', 'nat64', '10.0.0.1'],
    ['64:ff9b::808:808', 'public', 'nat64', '8.8.8.8'],
    ['64:ff9b:1::a9fe:a9fe', 'cloud-metadata', 'nat64-local', '169.254.169.254'],
    ['64:ff9b:1::808:808', 'private', 'nat64-local', '8.8.8.8'],
    ['2002:7f00:1::1', 'loopback', '6to4', '127.0.0.1'],
    ['2002:a9fe:a9fe::', 'cloud-metadata', '6to4', '169.254.169.254'],
    ['2002:808:808::1', 'public', '6to4', '8.8.8.8'],
    // RFC 4380 example: server 65.54.227.120, client 192.0.2.45 (obfuscated as 3fff:fdd2).
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'documentation', 'teredo', '192.0.2.45'],
    // Client 127.0.0.1 obfuscated: ~7f00:0001 = 80ff:fffe.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', 'teredo', '127.0.0.1'],
  ];
  for (const [address, category, form, ipv4] of embedded) {
    test(`${address} is ${category} through its ${form} IPv4 address ${ipv4}`, () => {
      const result = classifyAddress(address);
      assert.equal(result.category, category);
      assert.deepEqual(result.embeddedIpv4, { address: ipv4, form });
    });
  }

  test('mapped, translated and NAT64 forms classify exactly like their IPv4 address (property)', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ipv4) => {
        const expected = classifyAddress(ipv4).category;
        assert.equal(classifyAddress(`::ffff:${ipv4}`).category, expected, ipv4);
        assert.equal(classifyAddress(`::ffff:0:${ipv4}`).category, expected, ipv4);
        assert.equal(classifyAddress(`64:ff9b::${ipv4}`).category, expected, ipv4);
      }),
      { numRuns: 3000 },
    );
  });

  test('throws a TypeError for a name or garbage', () => {
    assert.throws(() => classifyAddress('example.com'), TypeError);
    assert.throws(() => classifyAddress('1.2.3.4.5'), TypeError);
    assert.throws(() => classifyAddress(''), TypeError);
  });
});
