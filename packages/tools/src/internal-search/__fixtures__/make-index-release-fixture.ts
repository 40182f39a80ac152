// Writes `index-release-3bf9957.db`: a search index file as release 3bf9957 wrote it (steps counted in
// PRAGMA user_version), for document-index-upgrade.test.ts. Run with that release's code, from its checkout:
//   git worktree add /tmp/release 3bf9957 && cp <this file> /tmp/release/packages/tools/src/
//   cd /tmp/release && node --conditions=development packages/tools/src/make-index-release-fixture.ts <out.db>
// (that release's openDocumentIndex is synchronous; today's is not, so this file does not type-check against it).
import { openDocumentIndex } from './internal-search/document-index.ts';

const path = process.argv[2];
if (path === undefined) throw new Error('usage: make-index-release-fixture.ts <out.db>');
const index = openDocumentIndex({ path });
index.upsert({
  sourceId: 'file:///kb/vpn.md',
  title: 'VPN setup',
  link: 'file:///kb/vpn.md',
  text: 'Install the wireguard client.\n\nImport the profile your administrator sent.',
  updatedAt: '2026-11-30T09:00:00.000Z',
});
index.upsert({ sourceId: 'file:///kb/holidays.md', title: 'Holidays', text: 'The office closes on public holidays.' });
index
  .forOrganization({ organizationId: 'research', uploadedBy: 'user-7' })
  .upsert({ sourceId: 'file:///kb/vpn.md', title: 'Lab VPN', text: 'The lab uses its own wireguard gateway.' });
index.close();
