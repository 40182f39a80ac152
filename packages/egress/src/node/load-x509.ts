import { webcrypto } from 'node:crypto';

type X509Module = typeof import('@peculiar/x509');

let loading: Promise<X509Module> | undefined;

/**
 * Loads the X.509 library once. It needs the Reflect metadata polyfill installed before it evaluates, which a
 * static import cannot guarantee under import sorting, and it must use Node's WebCrypto for its keys.
 */
export function loadX509(): Promise<X509Module> {
  loading ??= (async () => {
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    return x509;
  })();
  return loading;
}

/** The one key algorithm used for the CA and every leaf: ECDSA P-256 with SHA-256 (fast to mint, widely trusted). */
export const certificateKeyAlgorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
