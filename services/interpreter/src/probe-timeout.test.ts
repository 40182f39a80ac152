// The start-up probe is a run like any other, bounded by the longest a run may take (`maxTimeoutMs`), not by a
// shorter bound of its own: on a loaded machine it takes many times its second of CPU, and a probe cut off by load
// marked the sandbox unusable for the life of the process (cli-failures' run_python chart once failed so).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startInterpreterServer } from './interpreter-server.ts';

it('the probe gets as long as a run may: cut off by that bound, it says so and is not remembered', async () => {
  // A bound no probe meets (a fresh process: nothing probed yet).
  const cut = await startInterpreterServer({ limits: { maxTimeoutMs: 1 } });
  try {
    assert.equal(cut.isolation.sandbox, false);
    assert.equal(cut.isolation.reason, 'the sandbox probe did not finish within 1 ms');
  } finally {
    await cut.close();
  }
  // The next start probes again, with the default bound, and runs code.
  const next = await startInterpreterServer({});
  try {
    assert.equal(next.isolation.sandbox, true);
    assert.equal(next.isolation.probe?.ran, true);
    assert.equal(next.isolation.limits.max_timeout_ms, 60_000);
  } finally {
    await next.close();
  }
});
