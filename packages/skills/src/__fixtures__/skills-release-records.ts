// The skills in `skills-release-1b61ff76.sqlite`, in name order (as `list()` reads them back): written by
// make-skills-release-fixture.ts, read back by sqlite-skill-registry-upgrade.test.ts.
import type { SkillRecord } from '../skill-registry.ts';

export const releaseRecords: readonly SkillRecord[] = [
  {
    id: '9a0c4b6e-1f2d-4c3b-a5e8-7d6f1e2b3c4a',
    name: 'pdf',
    description: 'Reads, fills and writes PDF files.',
    frontMatter: { name: 'pdf', description: 'Reads, fills and writes PDF files.', extra: {} },
    sha256: 'c3'.repeat(32),
    blobKey: 'skills/pdf/c3c3c3c3.zip',
    totalBytes: 90_001,
    fileCount: 7,
    isBuiltIn: true,
    findings: [],
    findingsAccepted: false,
    createdAt: '2026-09-15T00:00:00.000Z',
  },
  {
    id: '0b9f3a52-6c1e-4d2a-9f57-2f0c8e1d4a10',
    name: 'quarterly-report',
    description: 'Builds the quarterly report from the finance exports.',
    frontMatter: {
      name: 'quarterly-report',
      description: 'Builds the quarterly report from the finance exports.',
      license: 'MIT',
      metadata: { owner: 'finance' },
      extra: { version: 3 },
    },
    sha256: 'a1'.repeat(32),
    blobKey: 'skills/quarterly-report/a1a1a1a1.zip',
    totalBytes: 48_213,
    fileCount: 4,
    isBuiltIn: false,
    findings: [
      {
        kind: 'network_exfiltration',
        file: 'scripts/upload.py',
        line: 12,
        excerpt: 'requests.post(url, data)',
      },
    ],
    findingsAccepted: true,
    createdAt: '2026-10-01T08:15:00.000Z',
  },
  {
    id: '5d7e2c91-3b4f-4e8a-8c26-91a0b7f3e5d2',
    name: 'résumé-tidy',
    description: 'Tidies a résumé: naïve café prose → crisp bullets ✓ (日本語も).',
    frontMatter: {
      name: 'résumé-tidy',
      description: 'Tidies a résumé: naïve café prose → crisp bullets ✓ (日本語も).',
      extra: { légende: 'emoji 🧾 and a zero-width\u200bjoiner' },
    },
    sha256: 'b2'.repeat(32),
    blobKey: 'skills/résumé-tidy/b2b2b2b2.zip',
    totalBytes: 1_337,
    fileCount: 1,
    isBuiltIn: false,
    findings: [],
    findingsAccepted: false,
    createdAt: '2026-11-30T17:45:30.123Z',
  },
];

/** The order the maker inserted them (the file's row order). */
export const insertionOrder = ['quarterly-report', 'résumé-tidy', 'pdf'] as const;
