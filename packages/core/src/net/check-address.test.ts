import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkAddress, checkHostName, compileAddressPolicy, internalHostName } from './check-address.ts';

const strict = { level: 'strict' } as const;
const permissive = { level: 'permissive' } as const;

describe('checkAddress', () => {
  test('strict allows only public addresses', () => {
    assert.equal(checkAddress('93.184.216.34', strict).allowed, true);
    assert.equal(checkAddress('2606:4700:4700::1111', strict).allowed, true);
    assert.equal(checkAddress('::ffff:8.8.8.8', strict).allowed, true);
    assert.equal(checkAddress('64:ff9b::808:808', strict).allowed, true);
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.0.1',
      '192.168.0.1',
      '100.64.0.1',
      '169.254.169.254',
      '169.254.1.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '240.0.0.1',
      '192.0.2.1',
      '198.18.0.1',
      '::1',
      '::',
      'fc00::1',
      'fe80::1',
      'fec0::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::127.0.0.1',
      '64:ff9b::7f00:1',
      '64:ff9b:1::808:808',
      '2002:a00:1::1',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
      '2001:db8::1',
    ]) {
      const verdict = checkAddress(address, strict);
      assert.equal(verdict.allowed, false, address);
    }
  });

  test('permissive allows private networks but never metadata, link-local or non-unicast', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '::1',
      'fd12::1',
      '::ffff:10.0.0.1',
      '93.184.216.34',
    ]) {
      assert.equal(checkAddress(address, permissive).allowed, true, address);
    }
    for (const address of [
      '169.254.169.254',
      '169.254.1.1',
      '100.100.100.200',
      'fd00:ec2::254',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a9fe:a9fe',
      '2002:a9fe:a9fe::1',
      'fe80::1',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '255.255.255.255',
      '240.0.0.1',
    ]) {
      assert.equal(checkAddress(address, permissive).allowed, false, address);
    }
  });

  test('a refusal names the category and the embedded form', () => {
    const verdict = checkAddress('::ffff:127.0.0.1', strict);
    assert.equal(verdict.allowed, false);
    assert.equal(verdict.category, 'loopback');
    assert.match(
      verdict.allowed ? '' : verdict.reason,
      /loopback address \(ipv4-mapped form of 127\.0\.0\.1\) not allowed at level strict/,
    );
  });

  test('an allowed CIDR block exempts exactly its addresses, also in their mapped form', () => {
    const policy = { level: 'strict', allow: ['127.0.0.1/32', '10.20.0.0/16', 'fd12::/16'] } as const;
    assert.equal(checkAddress('127.0.0.1', policy).allowed, true);
    assert.equal(checkAddress('::ffff:127.0.0.1', policy).allowed, true);
    assert.equal(checkAddress('127.0.0.2', policy).allowed, false);
    assert.equal(checkAddress('10.20.3.4', policy).allowed, true);
    assert.equal(checkAddress('10.21.0.1', policy).allowed, false);
    assert.equal(checkAddress('fd12:1::1', policy).allowed, true);
    assert.equal(checkAddress('fd13::1', policy).allowed, false);
    assert.equal(checkAddress('64:ff9b::a14:304', policy).allowed, true, 'NAT64 reaches 10.20.3.4 itself');
    assert.equal(
      checkAddress('2002:a14:304::1', policy).allowed,
      false,
      'a 6to4 address reaches a relay, not 10.20.3.4',
    );
    const exempt = checkAddress('10.20.3.4', policy);
    assert.equal(exempt.allowed && exempt.exemptedBy, '10.20.0.0/16');
  });

  test('an allowed host name exempts its addresses, but never cloud metadata', () => {
    const policy = { level: 'strict', allow: ['MCP.corp.example.'] } as const;
    assert.equal(checkAddress('10.0.0.5', policy, { hostName: 'mcp.corp.example' }).allowed, true);
    assert.equal(checkAddress('10.0.0.5', policy, { hostName: 'other.corp.example' }).allowed, false);
    assert.equal(checkAddress('10.0.0.5', policy).allowed, false);
    assert.equal(checkAddress('169.254.169.254', policy, { hostName: 'mcp.corp.example' }).allowed, false);
  });

  test('something that is not an IP address is refused', () => {
    assert.equal(checkAddress('example.com', permissive).allowed, false);
    assert.equal(checkAddress('1.2.3.4.5', permissive).allowed, false);
  });

  test('a bad allow-list entry or level fails when the policy is compiled', () => {
    assert.throws(
      () => compileAddressPolicy({ level: 'strict', allow: ['10.0.0.0/33'] }),
      /neither a CIDR block nor a host name/,
    );
    assert.throws(() => compileAddressPolicy({ level: 'strict', allow: ['1.2.3.4.5'] }), TypeError);
    assert.throws(() => compileAddressPolicy({ level: 'strict', allow: ['http://x'] }), TypeError);
    assert.throws(() => compileAddressPolicy({ level: 'off' as 'strict' }), /Unknown guard level/);
  });
});

describe('checkHostName', () => {
  test('cloud metadata names are refused at every level unless allowed by name', () => {
    assert.equal(checkHostName('metadata.google.internal', permissive), 'cloud metadata host name');
    assert.equal(checkHostName('METADATA.google.internal.', strict), 'cloud metadata host name');
    assert.equal(checkHostName('metadata', permissive), 'cloud metadata host name');
    assert.equal(checkHostName('example.com', strict), undefined);
    assert.equal(
      checkHostName('metadata.google.internal', { level: 'permissive', allow: ['metadata.google.internal'] }),
      undefined,
    );
  });

  test("every major cloud's metadata names are refused by name, in any case, with a trailing dot or in Unicode", () => {
    const names = [
      'metadata.google.internal', // Google Cloud
      'metadata.goog',
      'metadata', // Google Cloud's resolvers, OpenStack
      'instance-data', // AWS
      'instance-data.ec2.internal',
      'api.metadata.cloud.ibm.com', // IBM Cloud
      'metadata.tencentyun.com', // Tencent Cloud
      'metadata.platformequinix.com', // Equinix Metal
      'metadata.packet.net',
      'rancher-metadata', // Rancher
    ];
    for (const name of names) {
      for (const form of [name, `${name.toUpperCase()}.`, `${name}..`]) {
        assert.equal(checkHostName(form, permissive), 'cloud metadata host name', form);
      }
    }
    // Full-width letters and dots map to the same name under IDNA, as the URL parser and resolvers map them.
    assert.equal(
      checkHostName('ｍｅｔａｄａｔａ．ｇｏｏｇｌｅ．ｉｎｔｅｒｎａｌ', strict),
      'cloud metadata host name',
    );
    assert.equal(checkHostName('LOCALHOST\u3002', strict), 'localhost host name');
    // The providers that serve metadata at an address only (Azure, Alibaba, Oracle, DigitalOcean, Hetzner, …).
    for (const address of [
      '169.254.169.254',
      '100.100.100.200',
      '168.63.129.16',
      '192.0.0.192',
      'fd00:ec2::254',
    ]) {
      assert.equal(checkAddress(address, permissive).category, 'cloud-metadata', address);
    }
  });

  test('localhost and its subdomains, and Kubernetes names, are refused at every level; look-alikes are not', () => {
    for (const policy of [strict, permissive]) {
      assert.equal(checkHostName('localhost', policy), 'localhost host name');
      assert.equal(checkHostName('a.b.localhost.', policy), 'localhost host name');
      assert.equal(checkHostName('kubernetes.default.svc', policy), 'Kubernetes in-cluster host name');
      assert.equal(checkHostName('db.team.svc.cluster.local', policy), 'Kubernetes in-cluster host name');
    }
    assert.equal(internalHostName('kubernetes.default')?.category, 'private');
    assert.equal(internalHostName('localhost')?.category, 'loopback');
    for (const name of ['notlocalhost', 'localhost.example.com', 'svc.example.com', 'mysvc', 'kubernetes.io'])
      assert.equal(checkHostName(name, strict), undefined, name);
  });
});
