import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveUsage } from './commands/serve-command.ts';
import { parseSettingValue, resolveSetting } from './config-schema.ts';
import { resolveScaleOutTiming, SCALE_OUT_TIMING_SETTINGS } from './scale-out-timing.ts';

test('takeover timing: a flag beats the environment, which beats the config file; unset stays default', () => {
  assert.deepEqual(resolveScaleOutTiming({ flags: {}, env: {}, file: undefined }), {});
  assert.deepEqual(
    resolveScaleOutTiming({
      flags: { 'turn-lock-ms': '5000' },
      env: { TOOLBUS_TURN_LOCK_MS: '7000', TOOLBUS_STALLED_CHECK_MS: '2000' },
      file: { turnLockMs: 9_000, stalledCheckMs: 4_000, slotTtlMs: 12_000 },
    }),
    { queue: { lockDurationMs: 5_000, stalledIntervalMs: 2_000 }, slotTtlMs: 12_000 },
  );
});

test('takeover timing: a value that is not whole milliseconds above 0 is refused, naming its source', () => {
  assert.throws(
    () => resolveScaleOutTiming({ flags: { 'slot-ttl-ms': '1.5' }, env: {}, file: undefined }),
    /--slot-ttl-ms takes a whole number of milliseconds above 0, not "1.5"/,
  );
  assert.throws(
    () => resolveScaleOutTiming({ flags: {}, env: { TOOLBUS_TURN_LOCK_MS: 'soon' }, file: undefined }),
    /TOOLBUS_TURN_LOCK_MS takes/,
  );
});

test('each timing setting is a documented flag of toolbus serve and a config key', () => {
  for (const setting of SCALE_OUT_TIMING_SETTINGS) {
    assert.match(serveUsage, new RegExp(`--${setting.flag} N:`));
    assert.ok(serveUsage.includes(setting.env), setting.env);
    const resolved = resolveSetting(`redis.${setting.key}`);
    assert.equal(parseSettingValue(resolved, '2500'), 2_500);
    assert.throws(() => parseSettingValue(resolved, '0'), /whole number above 0/);
  }
  // The allowance is the deployment's, as the README says and the code does (counted in Redis).
  assert.match(
    serveUsage,
    /--requests-per-minute N: [\s\S]*one allowance per user for\s+the whole deployment/,
  );
  assert.doesNotMatch(serveUsage, /counted by each replica/);
});
