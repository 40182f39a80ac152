import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inflateRawSync } from 'node:zlib';
import {
  centralRecord,
  forgeZip,
  overlappingBomb,
  skillMarkdown,
  zerosCrc32,
  zerosDeflate,
} from './__fixtures__/forge-zip.ts';
import { inspectSkillBundle } from './inspect-skill-bundle.ts';
import { SkillBundleError, type SkillBundleErrorCode } from './skill-bundle-error.ts';
import { validateSkillBundle } from './validate-skill-bundle.ts';

const skill = { name: 'SKILL.md', data: skillMarkdown() };
const mebibyte = 1024 * 1024;
const generousGrowthBound = 200 * mebibyte;

/** Peak resident memory so far, in bytes (monotonic for the process). */
const peakResident = () => process.resourceUsage().maxRSS * 1024;

async function assertRefusedWithBoundedMemory(archive: Buffer, code: SkillBundleErrorCode) {
  const before = peakResident();
  await assert.rejects(validateSkillBundle(archive), (error: unknown) => {
    assert.ok(SkillBundleError.isInstance(error));
    assert.equal(error.code, code, error.message);
    return true;
  });
  const inspection = await inspectSkillBundle(archive); // gathering every problem must stay bounded too
  assert.ok(inspection.problems.some((problem) => problem.code === code));
  const growth = peakResident() - before;
  assert.ok(growth < generousGrowthBound, `peak memory grew by ${(growth / mebibyte).toFixed(0)} MiB`);
}

describe('zip bombs are refused with bounded memory', () => {
  it('refuses a classic bomb that honestly declares 1 GiB, without inflating it', async () => {
    const kernel = zerosDeflate(1024);
    const archive = forgeZip([
      skill,
      {
        name: 'zeros.bin',
        rawData: kernel,
        both: { crc32: zerosCrc32(1024), uncompressedSize: 1024 * mebibyte },
      },
    ]);
    assert.ok(archive.length < 2 * mebibyte, 'the bomb is compact');
    await assertRefusedWithBoundedMemory(archive, 'entry_too_large');
  });

  it('refuses a bomb that declares 1 KiB and expands to 1 GiB, stopping at the declared size', async () => {
    const kernel = zerosDeflate(1024);
    const archive = forgeZip([
      skill,
      { name: 'small.txt', rawData: kernel, both: { crc32: 0, uncompressedSize: 1024 } },
    ]);
    await assertRefusedWithBoundedMemory(archive, 'size_mismatch');
  });

  it('refuses a bomb that declares just under the per-file limit and expands to 1 GiB', async () => {
    const kernel = zerosDeflate(1024);
    const archive = forgeZip([
      skill,
      { name: 'almost.bin', rawData: kernel, both: { crc32: 0, uncompressedSize: 25 * mebibyte - 1 } },
    ]);
    await assertRefusedWithBoundedMemory(archive, 'size_mismatch');
  });

  it('refuses many honest entries whose total passes the limit, before inflating any', async () => {
    const kernel = zerosDeflate(20);
    const crc = zerosCrc32(20);
    const entries = Array.from({ length: 8 }, (_, index) => ({
      name: `part-${index}.bin`,
      rawData: kernel,
      both: { crc32: crc, uncompressedSize: 20 * mebibyte },
    }));
    await assertRefusedWithBoundedMemory(forgeZip([skill, ...entries]), 'bundle_too_large');
  });

  it("refuses David Fifield's overlapping bomb, whose expansion is real", async () => {
    const archive = overlappingBomb({ files: 20, kernelMebibytes: 8 });
    // Prove the bomb works: the first entry's data alone inflates to its declared size (every entry expands to
    // about the kernel, so the whole archive to about 20 × 8 MiB).
    const firstCompressed = archive.readUInt32LE(archive.length - 22 - (46 + 13) * 20 + 20);
    const firstDeclared = archive.readUInt32LE(archive.length - 22 - (46 + 13) * 20 + 24);
    const data = archive.subarray(30 + 13, 30 + 13 + firstCompressed);
    assert.equal(inflateRawSync(data, { maxOutputLength: 200 * mebibyte }).length, firstDeclared);
    assert.ok(firstDeclared > 8 * mebibyte);
    await assertRefusedWithBoundedMemory(archive, 'overlapping_entries');
  });

  it('refuses many central records pointing at one local header (a quoted-overlap bomb)', async () => {
    const kernel = zerosDeflate(20);
    const crc = zerosCrc32(20);
    const archive = forgeZip(
      [{ name: 'a.bin', rawData: kernel, both: { crc32: crc, uncompressedSize: 20 * mebibyte } }, skill],
      {
        extraCentralRecords: (offsets) =>
          Array.from({ length: 50 }, () =>
            centralRecord({
              name: 'a.bin',
              localHeaderOffset: offsets[0]!,
              crc32: crc,
              compressedSize: kernel.length,
              uncompressedSize: 20 * mebibyte,
            }),
          ),
      },
    );
    await assertRefusedWithBoundedMemory(archive, 'overlapping_entries');
  });
});
