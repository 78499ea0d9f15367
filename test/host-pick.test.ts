// Where New Terminal / New Agent start when holdfast.hosts lists hosts (hostPick.ts): no step without hosts, this
// machine first, a host's folder as typed (an absolute path, else one line), and the recent folders per host kept
// in globalState (newest first, bounded; whatever else is stored there is dropped, never an error).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memento as mementoAt } from './helpers/memento';
import {
  checkHostFolder,
  folderChoices,
  HOST_FOLDERS_KEY,
  HostFolders,
  hostChoices,
  MAX_FOLDER_HOSTS,
  MAX_HOST_FOLDERS,
} from '../src/extension/hostPick';
import { UI_JOINER } from '../src/text/uiText';

const memento = (initial?: unknown) => mementoAt(HOST_FOLDERS_KEY, initial);

test('no host listed: no pick at all; else this machine first, then each host with its state', () => {
  assert.deepEqual(hostChoices([]), []);
  const choices = hostChoices([
    { name: 'gpu-box', state: 'connected' },
    { name: 'dev', state: 'failed', error: 'ssh: host key unknown — run `ssh dev` once' },
    { name: '$(zap) odd', state: 'connecting' },
  ]);
  assert.deepEqual(
    choices.map((c) => [c.label, c.description, c.host]),
    [
      ['$(device-desktop) This machine', undefined, undefined],
      ['$(remote) gpu-box', 'connected', 'gpu-box'],
      ['$(remote) dev', 'ssh: host key unknown — run `ssh dev` once', 'dev'],
      [`$(remote) $${UI_JOINER}(zap) odd`, 'connecting…', '$(zap) odd'],
    ],
  );
});

test('the folder pick: the path typed first, the home, then the recent folders', () => {
  const recent = ['/srv/app', '/home/me/src'];
  assert.deepEqual(
    folderChoices('dev', recent, '').map((c) => [c.label, c.folder, c.typed ?? false]),
    [
      ['$(home) Home folder', undefined, false],
      ['/srv/app', '/srv/app', false],
      ['/home/me/src', '/home/me/src', false],
    ],
  );
  const typed = folderChoices('dev', recent, ' /opt/x ');
  assert.deepEqual(
    [typed[0].label, typed[0].folder, typed[0].typed, typed[0].alwaysShow],
    ['/opt/x', '/opt/x', true, true],
  );
  assert.equal(typed.length, 4);
  assert.equal(folderChoices('dev', recent, '/srv/app').length, 3, 'a recent folder typed is listed once');
});

test('a folder typed for a host: an absolute path there, else one line naming the host', () => {
  assert.deepEqual(checkHostFolder('dev', ' /srv//app/ '), { folder: '/srv/app/' });
  assert.deepEqual(checkHostFolder('dev', 'src/app'), {
    error: 'a folder on dev must be an absolute path there, not "src/app"',
  });
  assert.deepEqual(checkHostFolder('dev', '~/src'), {
    error: 'a folder on dev must be an absolute path there, not "~/src"',
  });
  assert.ok('error' in checkHostFolder('dev', ''));
  assert.ok('error' in checkHostFolder('dev', `/${'x'.repeat(5000)}`));
  assert.ok('error' in checkHostFolder('dev', '/a\0b'));
});

test('recent folders per host: newest first, each once, bounded, kept across windows', () => {
  const state = memento();
  const folders = new HostFolders(state);
  folders.add('dev', '/a');
  folders.add('dev', '/b');
  folders.add('dev', '/a');
  folders.add('gpu', '/c');
  folders.add('dev', 'relative'); // never recorded
  assert.deepEqual(folders.of('dev'), ['/a', '/b']);
  assert.deepEqual(new HostFolders(state).of('dev'), ['/a', '/b'], 'another window reads the same');
  assert.deepEqual(new HostFolders(state).of('gpu'), ['/c']);
  assert.deepEqual(folders.of('nowhere'), []);

  for (let i = 0; i < MAX_HOST_FOLDERS + 5; i++) folders.add('dev', `/f${i}`);
  assert.equal(folders.of('dev').length, MAX_HOST_FOLDERS);
  assert.equal(folders.of('dev')[0], `/f${MAX_HOST_FOLDERS + 4}`);

  for (let i = 0; i < MAX_FOLDER_HOSTS + 5; i++) folders.add(`h${i}`, '/x');
  const reread = new HostFolders(state);
  assert.deepEqual(reread.of('dev'), [], 'the hosts used longest ago are forgotten');
  assert.deepEqual(reread.of(`h${MAX_FOLDER_HOSTS + 4}`), ['/x']);
});

test('whatever else globalState holds under the key is dropped, never an error', () => {
  for (const hostile of [null, 7, 'x', ['/a'], { dev: '/a' }, { dev: [1, null, 'rel', '/ok', '/ok'] }]) {
    const folders = new HostFolders(memento(hostile));
    assert.deepEqual(
      folders.of('dev'),
      JSON.stringify(hostile).includes('/ok') ? ['/ok'] : [],
      JSON.stringify(hostile),
    );
  }
  const proto = new HostFolders(memento(JSON.parse('{"__proto__": ["/p"], "dev": ["/d"]}')));
  assert.deepEqual(proto.of('dev'), ['/d']);
  assert.equal(Object.getPrototypeOf({}), Object.prototype, 'nothing reached the prototype');
});
