// What the e2e's waits ask the daemon through the probe (one connection kept open, daemonProbe.ts), without a
// window: the same answers a CLI call gives, an unknown session refused in the daemon's words, [] while no daemon
// listens, and the daemon after a stop, a SIGKILL or a new start found again on a new connection.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { daemonPids, Isolation } from './isolation';
import { isAlive, kill } from './processes';
import { waitFor } from './utilities';

const iso = new Isolation('probe');
after(() => iso.dispose());

test('the probe answers as the CLI does, and finds the daemon again after it is stopped or killed', async () => {
  assert.deepEqual(iso.sessions(), [], 'no daemon yet: no sessions');
  assert.throws(() => iso.session('nothing'), /no Holdfast daemon is listening/);

  const one = iso.newShellSession('one', 'echo probe-one-42; exec sleep 600');
  await iso.waitForScreen(one.id, /^probe-one-42$/m);
  assert.deepEqual(iso.sessions(), iso.cliJson<{ sessions: unknown[] }>(['list']).sessions);
  assert.deepEqual(iso.screen(one.id), iso.cliJson<{ lines: string[] }>(['read', one.id]).lines);
  assert.equal(iso.session(one.id).pid, one.pid);
  assert.throws(() => iso.session('nothing'), /holdfast show nothing: no session "nothing"/);

  assert.equal(iso.cli(['stop']).code, 0);
  await waitFor(() => daemonPids(iso).length === 0, { timeout: 10_000, message: 'the daemon to stop' });
  assert.deepEqual(iso.sessions(), [], 'stopped: no sessions, not an error');

  const two = iso.newShellSession('two', 'exec sleep 600');
  assert.deepEqual(
    iso.sessions().map((s) => s.name),
    ['two'],
    'the new daemon, on a new connection',
  );

  const [daemon] = daemonPids(iso);
  kill(daemon, 'SIGKILL');
  await waitFor(() => !isAlive(daemon), { timeout: 10_000, message: 'the daemon to die' });
  assert.deepEqual(iso.sessions(), [], 'killed: no sessions, not an error');
  kill(two.pid, 'SIGKILL');

  const three = iso.newShellSession('three', 'exec sleep 600');
  assert.equal(iso.session(three.id).name, 'three');
});
