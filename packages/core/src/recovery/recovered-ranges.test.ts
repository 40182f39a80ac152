import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecoveredRanges } from './recovered-ranges.ts';

describe('RecoveredRanges.claimedFrom', () => {
  it('is the end when nothing reaches it', () => {
    const ranges = new RecoveredRanges();
    assert.equal(ranges.claimedFrom(100), 100);
    ranges.add(10, 20);
    assert.equal(ranges.claimedFrom(100), 100);
  });

  it('walks back over ranges that touch, and stops at a gap', () => {
    const ranges = new RecoveredRanges();
    ranges.add(80, 100);
    assert.equal(ranges.claimedFrom(100), 80);
    ranges.add(60, 80);
    ranges.add(10, 50);
    assert.equal(ranges.claimedFrom(100), 60);
    ranges.add(50, 60);
    assert.equal(ranges.claimedFrom(100), 10);
    // A shorter text end inside the last range is claimed from that range's start.
    assert.equal(ranges.claimedFrom(90), 10);
  });

  it('does not count an empty range as claimed text', () => {
    const ranges = new RecoveredRanges();
    ranges.add(100, 100);
    assert.equal(ranges.claimedFrom(100), 100);
    ranges.add(40, 100);
    assert.equal(ranges.claimedFrom(100), 40);
  });
});
