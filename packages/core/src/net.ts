// The address rules (`@toolbus/core/net`): which hosts and addresses a guarded request may reach, portable (no
// Node-only module). The egress proxy and the server's sandbox egress read them; a tool author rarely needs them,
// so they stay off the package root. The guarded fetch that applies them is in `@toolbus/core/node`; the error
// it throws, `GuardedFetchError`, is on the root.
export type {
  AddressCheck,
  AddressPolicy,
  CheckAddressContext,
  CompiledAddressPolicy,
  GuardLevel,
} from './net/check-address.ts';
export {
  checkAddress,
  checkHostName,
  cloudMetadataHostNames,
  compileAddressPolicy,
} from './net/check-address.ts';
export type { AddressCategory, AddressClassification, EmbeddedIpv4Form } from './net/classify-address.ts';
export { classifyAddress, cloudMetadataAddresses } from './net/classify-address.ts';
export type { IpHostLiteral, IpHostLiteralFields, ParsedHost } from './net/parse-host-literal.ts';
export { canonicalHostName, parseHostLiteral } from './net/parse-host-literal.ts';
