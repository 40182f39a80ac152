export { describeOrganizationStoreConformance } from './organization-store-conformance.ts';
