import { createPrivateKey, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EgressProxyError } from '../identity/egress-proxy-error.ts';
import { certificateKeyAlgorithm, loadX509 } from './load-x509.ts';
import { writeFileAtomically } from './write-file-atomically.ts';

/** The deployment's interception CA, loaded and validated. */
export interface CertificateAuthority {
  /** The CA certificate (PEM): the only thing that goes into a sandbox's trust store. */
  readonly certificatePem: string;
  /** Where the certificate alone is written (mode 0644), for binding into sandboxes. */
  readonly certificatePath: string;
  readonly privateKey: webcrypto.CryptoKey;
  readonly certificate: X509Certificate;
}

/** Options for {@link loadOrCreateCertificateAuthority}. */
export interface CertificateAuthorityOptions {
  /** The store directory (made 0700); holds `ca.pem` (key and certificate, 0600) and `ca.crt` (0644). */
  readonly directory: string;
  readonly now?: () => Date;
  /** The CA's common name; "toolbus egress proxy CA" when absent. */
  readonly commonName?: string;
}

const validityDays = 1825;
const clockSkewMs = 5 * 60 * 1000;

function pem(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der)
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${base64}-----END ${label}-----\n`;
}

/** A positive random serial number (RFC 5280: at most 20 bytes, not negative). */
export function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}

async function generate(commonName: string, now: Date): Promise<string> {
  const x509 = await loadX509();
  const keys = await webcrypto.subtle.generateKey(certificateKeyAlgorithm, true, ['sign', 'verify']);
  const notBefore = new Date(now.getTime() - clockSkewMs);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialNumber(),
    name: [{ CN: [commonName] }, { O: ['toolbus'] }],
    notBefore,
    notAfter: new Date(notBefore.getTime() + validityDays * 86_400_000),
    keys: keys as unknown as CryptoKeyPair,
    signingAlgorithm: certificateKeyAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as unknown as CryptoKey),
    ],
  });
  const privateKey = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return `${pem('PRIVATE KEY', privateKey)}${certificate.toString('pem')}\n`;
}

function damaged(message: string, cause?: unknown): EgressProxyError {
  return new EgressProxyError({
    code: 'ca_store_damaged',
    message: `${message} Repair or delete the CA store and restart; it is never regenerated over existing files.`,
    cause,
  });
}

async function parse(text: string, now: Date, certificatePath: string): Promise<CertificateAuthority> {
  const keyMatch = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(text);
  const certificateMatch = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text);
  if (keyMatch === null || certificateMatch === null) {
    throw damaged('The CA store lacks its private key or its certificate.');
  }
  let certificate: X509Certificate;
  let keyDer: Buffer;
  try {
    certificate = new X509Certificate(certificateMatch[0]);
    keyDer = createPrivateKey(keyMatch[0]).export({ type: 'pkcs8', format: 'der' });
  } catch (error) {
    throw damaged('The CA store does not parse.', error);
  }
  if (!certificate.checkPrivateKey(createPrivateKey(keyMatch[0]))) {
    throw damaged('The CA private key does not belong to the CA certificate.');
  }
  if (!certificate.ca) {
    throw new EgressProxyError({
      code: 'ca_invalid',
      message: 'The stored certificate is not a CA certificate.',
    });
  }
  if (new Date(certificate.validFrom).getTime() > now.getTime() + clockSkewMs) {
    throw new EgressProxyError({
      code: 'ca_invalid',
      message: 'The stored CA is not valid yet (clock skew?).',
    });
  }
  if (new Date(certificate.validTo).getTime() <= now.getTime()) {
    throw new EgressProxyError({ code: 'ca_invalid', message: 'The stored CA has expired; replace it.' });
  }
  const privateKey = await webcrypto.subtle.importKey('pkcs8', keyDer, certificateKeyAlgorithm, false, [
    'sign',
  ]);
  return { certificatePem: `${certificateMatch[0]}\n`, certificatePath, privateKey, certificate };
}

/**
 * Loads the deployment's CA from its store, or creates it when the store holds none. A store that exists but is
 * damaged is an error, never a reason to regenerate (every sandbox trusting the old CA would break). Two proxies
 * starting at once agree on one CA: the store file is created exclusively, and the loser loads the winner's.
 */
export async function loadOrCreateCertificateAuthority(
  options: CertificateAuthorityOptions,
): Promise<CertificateAuthority> {
  const now = options.now?.() ?? new Date();
  mkdirSync(options.directory, { recursive: true, mode: 0o700 });
  chmodSync(options.directory, 0o700);
  const storePath = join(options.directory, 'ca.pem');
  const certificatePath = join(options.directory, 'ca.crt');
  if (!existsSync(storePath)) {
    const created = await generate(options.commonName ?? 'toolbus egress proxy CA', now);
    writeFileAtomically(storePath, created, { mode: 0o600, exclusive: true });
  }
  let text: string;
  try {
    text = readFileSync(storePath, 'utf8');
  } catch (error) {
    throw damaged('The CA store cannot be read.', error);
  }
  const authority = await parse(text, now, certificatePath);
  writeFileAtomically(certificatePath, authority.certificatePem, { mode: 0o644 });
  chmodSync(certificatePath, 0o644);
  return authority;
}
