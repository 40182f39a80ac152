import { openStorage } from '../open-storage.ts';
import { describeOrganizationStoreConformance } from '../testing/organization-store-conformance.ts';

describeOrganizationStoreConformance('sqlite', () =>
  openStorage({ path: ':memory:', secretKey: Buffer.alloc(32, 7), environment: {} }),
);
