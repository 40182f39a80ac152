export type { DockerEventsIdentitySourceOptions } from '../identity/docker-events-identity-source.ts';
export { createDockerEventsIdentitySource } from '../identity/docker-events-identity-source.ts';
export type { EgressProxyErrorCode } from '../identity/egress-proxy-error.ts';
export { EgressProxyError, egressProxyErrorCodes } from '../identity/egress-proxy-error.ts';
export * from '../identity/identity-source.ts';
export type { KubernetesPodIdentitySourceOptions } from '../identity/kubernetes-pod-identity-source.ts';
export { createKubernetesPodIdentitySource } from '../identity/kubernetes-pod-identity-source.ts';
export type { CertificateAuthority, CertificateAuthorityOptions } from './certificate-authority.ts';
export { loadOrCreateCertificateAuthority } from './certificate-authority.ts';
export type { RunSocketEgress, RunSocketEgressOptions, RunSocketLease } from './create-run-socket-egress.ts';
export { createRunSocketEgress } from './create-run-socket-egress.ts';
export type { EgressRunIdentity, EgressRunTokenCheck, EgressRunTokenRefusal } from './egress-run-token.ts';
export {
  deriveEgressTokenKey,
  maxEgressRunTokenTtlMs,
  mintEgressRunToken,
  verifyEgressRunToken,
} from './egress-run-token.ts';
export type { HealthEndpoint } from './health-endpoint.ts';
export { listenHealthEndpoint } from './health-endpoint.ts';
export type { LeafCertificateCache } from './leaf-certificate-cache.ts';
export { createLeafCertificateCache } from './leaf-certificate-cache.ts';
export type { RunIdentityRegistry } from './run-identity-registry.ts';
export { createRunIdentityRegistry } from './run-identity-registry.ts';
export * from './start-egress-proxy.ts';
export type { EgressService, EgressServiceOptions } from './start-egress-service.ts';
export { drainOnSignals, startEgressService } from './start-egress-service.ts';
