import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { runTurnByTurn } from './turn-by-turn.ts';

describe('runTurnByTurn', () => {
  it('runs tasks in order, and polls for I/O between two tasks', async () => {
    // A loopback pair: bytes written in the first task are readable (in the kernel) before it returns.
    let accepted: Socket | undefined;
    const server = createServer((socket) => {
      accepted = socket;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = connect((server.address() as { port: number }).port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    while (accepted === undefined) await new Promise((resolve) => setImmediate(resolve));
    const received: string[] = [];
    client.on('data', (data) => received.push(data.toString()));
    const order: string[] = [];
    let seenBySecond: string[] | undefined;
    await new Promise<void>((resolve) => {
      runTurnByTurn(() => {
        order.push('first');
        accepted!.write('token');
        // Wait until the bytes have surely reached the client's socket in the kernel.
        const until = performance.now() + 50;
        while (performance.now() < until);
      });
      runTurnByTurn(() => {
        order.push('second');
        seenBySecond = [...received];
      });
      runTurnByTurn(() => {
        order.push('third');
        resolve();
      });
    });
    client.destroy();
    accepted!.destroy();
    server.close();
    assert.deepEqual(order, ['first', 'second', 'third']);
    // With every task in one check phase (setImmediate alone), the second ran before the read was served.
    assert.deepEqual(seenBySecond, ['token'], 'the read waited for the next task');
  });

  it('leaves out a cancelled task', async () => {
    const ran: string[] = [];
    await new Promise<void>((resolve) => {
      runTurnByTurn(() => ran.push('a'));
      const b = runTurnByTurn(() => ran.push('b'));
      runTurnByTurn(() => {
        ran.push('c');
        resolve();
      });
      b.cancel();
    });
    assert.deepEqual(ran, ['a', 'c']);
  });
});
