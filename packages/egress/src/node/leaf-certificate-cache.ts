import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { CertificateAuthority } from './certificate-authority.ts';
import { randomSerialNumber } from './certificate-authority.ts';
import { certificateKeyAlgorithm, loadX509 } from './load-x509.ts';

/** Mints and caches the certificate the proxy presents to a sandbox for each host. */
export interface LeafCertificateCache {
  /** The TLS context for `host` (a DNS name or an IP literal), minted on first use. */
  secureContextFor(host: string): Promise<SecureContext>;
  /** How many hosts have a minted certificate. */
  readonly size: number;
}

const leafValidityMs = 30 * 86_400_000;
const clockSkewMs = 5 * 60 * 1000;

/**
 * A per-host leaf certificate cache over one leaf key pair (generated per process; only certificates differ per
 * host). Entries are kept up to `maxEntries`, oldest evicted first; concurrent requests for a host share one mint.
 */
export function createLeafCertificateCache(
  authority: CertificateAuthority,
  options: { readonly maxEntries?: number } = {},
): LeafCertificateCache {
  const maxEntries = options.maxEntries ?? 1024;
  const contexts = new Map<string, Promise<SecureContext>>();
  const keysPromise = webcrypto.subtle.generateKey(certificateKeyAlgorithm, true, ['sign', 'verify']);
  const keyPemPromise = keysPromise.then(async (keys) => {
    const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
    const base64 = Buffer.from(der)
      .toString('base64')
      .replace(/.{1,64}/g, '$&\n');
    return `-----BEGIN PRIVATE KEY-----\n${base64}-----END PRIVATE KEY-----\n`;
  });

  async function mint(host: string): Promise<SecureContext> {
    const x509 = await loadX509();
    const keys = await keysPromise;
    const now = Date.now();
    const caNotAfter = new Date(authority.certificate.validTo).getTime();
    const name =
      isIP(host) === 0 ? { type: 'dns' as const, value: host } : { type: 'ip' as const, value: host };
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerialNumber(),
      subject: [{ CN: [host.length <= 64 ? host : 'toolbus egress'] }],
      // The CA's own encoded name, so chain building matches issuer to subject byte for byte.
      issuer: new x509.X509Certificate(authority.certificatePem).subjectName,
      notBefore: new Date(now - clockSkewMs),
      notAfter: new Date(Math.min(now + leafValidityMs, caNotAfter)),
      publicKey: keys.publicKey as unknown as CryptoKey,
      signingKey: authority.privateKey as unknown as CryptoKey,
      signingAlgorithm: certificateKeyAlgorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([name]),
      ],
    });
    return createSecureContext({ key: await keyPemPromise, cert: certificate.toString('pem') });
  }

  return {
    secureContextFor(host) {
      const key = host.toLowerCase();
      let context = contexts.get(key);
      if (context === undefined) {
        if (contexts.size >= maxEntries) {
          const oldest = contexts.keys().next().value;
          if (oldest !== undefined) contexts.delete(oldest);
        }
        context = mint(key);
        context.catch(() => contexts.delete(key));
        contexts.set(key, context);
      }
      return context;
    },
    get size() {
      return contexts.size;
    },
  };
}
