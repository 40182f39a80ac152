import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pulled } from './pulled.ts';

describe('pulled: a pushing producer read as an async generator', () => {
  it('hands the values over in order, the producer waiting for each to be asked for', async () => {
    const log: string[] = [];
    const values = pulled<number>(async (push) => {
      for (const value of [1, 2, 3]) {
        log.push(`push ${value}`);
        await push(value);
        log.push(`taken ${value}`);
      }
    });
    for await (const value of values) log.push(`read ${value}`);
    assert.deepEqual(log, [
      'push 1',
      'read 1',
      'taken 1',
      'push 2',
      'read 2',
      'taken 2',
      'push 3',
      'read 3',
      'taken 3',
    ]);
  });

  it('a consumer that stops early unwinds the producer before its return settles', async () => {
    let released = false;
    let pushedAfterStop = false;
    const values = pulled<number>(async (push) => {
      try {
        await push(1);
        await push(2);
        pushedAfterStop = true;
      } finally {
        released = true;
      }
    });
    for await (const value of values) {
      assert.equal(value, 1);
      break;
    }
    assert.equal(released, true);
    assert.equal(pushedAfterStop, false);
  });

  it("the producer's failure reaches the consumer after the values pushed before it", async () => {
    const read: number[] = [];
    const values = pulled<number>(async (push) => {
      await push(1);
      throw new Error('model went away');
    });
    await assert.rejects(
      (async () => {
        for await (const value of values) read.push(value);
      })(),
      /model went away/,
    );
    assert.deepEqual(read, [1]);
  });

  it('a producer that pushes nothing ends the generator', async () => {
    const read: number[] = [];
    for await (const value of pulled<number>(async () => {})) read.push(value);
    assert.deepEqual(read, []);
  });
});
