// The `holdfast` CLI: unknown and ambiguous sessions, exit codes and signals, kill and rm.
// Real daemon, real PTYs, real sockets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SessionInfo } from '../src/protocol/messages';
import { cliSandbox, type CliSandbox, isOneErrorLine } from './helpers/cli';
import { elsewhereTest } from './helpers/portablePass';

describe('sessions that end', () => {
  let box: CliSandbox;
  before(() => {
    box = cliSandbox();
  });
  after(() => box.cleanup());

  const show = async (ref: string): Promise<SessionInfo> => JSON.parse(await box.ok(['show', ref, '--json']));

  elsewhereTest('unknown sessions exit 4, ambiguous names exit 2', async () => {
    // A session keeps the on-demand daemon up while the rest run (in parallel: each is a node start).
    await box.ok(['new', '--name', 'keeper', '--', 'sleep', '60']);
    const cases = [
      ['show', 'nope'],
      ['read', 'nope'],
      ['send', 'nope', '--text', 'x'],
      ['wait', 'nope', '--for', 'exit'],
      ['kill', 'nope'],
      ['rm', 'nope'],
      ['resize', 'nope', '--cols', '10', '--rows', '10'],
      ['attach', 'nope'],
    ];
    await Promise.all(
      cases.map(async (args) => {
        const { code, stderr, stdout } = await box.run(args);
        assert.equal(code, 4, `${args.join(' ')}: ${stderr}`);
        assert.ok(isOneErrorLine(stderr), stderr);
        assert.equal(stdout, '');
      }),
    );
    await Promise.all(
      [
        ['show', 'nope'],
        ['attach', 'nope'],
      ].map(async (args) => {
        const json = await box.run([...args, '--json']);
        assert.equal(json.code, 4);
        assert.equal(JSON.parse(json.stdout).error.code, 'no-session');
      }),
    );
    const a = (await box.ok(['new', '--name', 'twin', '--', 'sleep', '60'])).trim();
    const b = (await box.ok(['new', '--name', 'twin', '--', 'sleep', '60'])).trim();
    const ambiguous = await box.run(['show', 'twin']);
    assert.equal(ambiguous.code, 2);
    assert.ok(isOneErrorLine(ambiguous.stderr));
    assert.ok(ambiguous.stderr.includes(a) && ambiguous.stderr.includes(b), ambiguous.stderr);
    await box.ok(['rm', a]);
    await box.ok(['rm', b]);
  });

  test('exit codes and signals are recorded', async () => {
    const code3 = (await box.ok(['new', '--', 'sh', '-c', 'exit 3'])).trim();
    const waited = await box.run(['wait', code3, '--for', 'exit', '--timeout-ms', '10000']);
    assert.equal(waited.code, 0, waited.stderr);
    assert.equal(waited.stdout, 'exited (3)\n');
    const info = await show(code3);
    assert.equal(info.state, 'exited');
    assert.deepEqual([info.exit?.code, info.exit?.signal], [3, null]);

    const sleeper = (await box.ok(['new', '--', 'sleep', '1000'])).trim();
    const killed = JSON.parse(await box.ok(['kill', sleeper, '--signal', 'TERM', '--json']));
    assert.equal(killed.state, 'exited');
    assert.equal(killed.exit.signal, 'SIGTERM');
    assert.equal((await show(sleeper)).exit?.signal, 'SIGTERM');

    // A program that ignores the signal gets SIGKILL after the grace period.
    const stubborn = (await box.ok(['new', '--', 'sh', '-c', 'trap "" INT; echo armed; sleep 1000'])).trim();
    await box.ok(['wait', stubborn, '--for', 'text:armed', '--timeout-ms', '10000']);
    const plain = await box.ok(['kill', stubborn, '--signal', 'INT', '--grace-ms', '200', '--remove']);
    assert.match(plain, /exited \(SIGKILL\), removed/);
    assert.equal((await box.run(['show', stubborn])).code, 4);

    const exitedText = await box.run(['send', code3, '--text', 'x']);
    assert.equal(exitedText.code, 1, 'sending to an exited session fails');
    await box.ok(['rm', code3]);
    await box.ok(['rm', sleeper]);
  });
});
