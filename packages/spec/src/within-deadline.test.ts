import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ToolbusError } from './errors/toolbus-error.ts';
import { withinDeadline } from './within-deadline.ts';

const late = () => new ToolbusError({ code: 'late', message: 'It did not come in time.' });

describe('withinDeadline', () => {
  test("gives work's value when it settles in time, without building the timeout error", async () => {
    let built = 0;
    const value = await withinDeadline(Promise.resolve(42), {
      timeoutMs: 60_000,
      onTimeout: () => {
        built += 1;
        return late();
      },
    });
    assert.equal(value, 42);
    assert.equal(built, 0);
  });

  test("passes work's own rejection through unchanged", async () => {
    const own = new Error('refused');
    await assert.rejects(
      withinDeadline(Promise.reject(own), { timeoutMs: 60_000, onTimeout: late }),
      (error) => {
        assert.equal(error, own);
        return true;
      },
    );
  });

  test('fails with the timeout error when work never settles', async () => {
    await assert.rejects(
      withinDeadline(new Promise<never>(() => {}), { timeoutMs: 5, onTimeout: late }),
      (error) => ToolbusError.isInstance(error) && error.code === 'late',
    );
  });
});
