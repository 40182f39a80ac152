export type { CertificateAuthority, CertificateAuthorityOptions } from './certificate-authority.ts';
export { loadOrCreateCertificateAuthority } from './certificate-authority.ts';
export type { EgressProxyErrorCode } from './egress-proxy-error.ts';
export { EgressProxyError, egressProxyErrorCodes } from './egress-proxy-error.ts';
export type { LeafCertificateCache } from './leaf-certificate-cache.ts';
export { createLeafCertificateCache } from './leaf-certificate-cache.ts';
export type {
  EgressListener,
  EgressListenOptions,
  EgressProxy,
  EgressProxyOptions,
} from './start-egress-proxy.ts';
export { startEgressProxy } from './start-egress-proxy.ts';
