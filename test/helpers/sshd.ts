// A real OpenSSH server on loopback for the host tests: its own host key, a key pair made for the test, and a
// remote side with HOME and XDG dirs of its own (so its daemon, socket, token and sessions are its own), whose
// `holdfast` is this build's CLI. The client side reaches it through an ssh config of the test (HOLDFAST_SSH).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliSandbox, type CliSandbox } from './cli';
import { CLI_SCRIPT, isAlive, waitFor } from './daemon';

export const SSHD = '/usr/sbin/sshd';

/** The ssh config's aliases: the server, the server with no known host key, and a port nothing listens on. */
export const REMOTE = 'hf-remote';
export const UNKNOWN_KEY = 'hf-unknown-key';
export const NOBODY_THERE = 'hf-nobody';

export interface SshServer {
  dir: string;
  port: number;
  /** The remote user's environment, as `holdfast` runs there (for the test's own checks of the remote daemon). */
  remoteEnv: NodeJS.ProcessEnv;
  /** The program the client runs as ssh: `ssh -F CONFIG "$@"` (HOLDFAST_SSH). */
  sshProgram: string;
  /** While held, a new ssh waits before it connects, as over a network down for a moment (one already up stays). */
  hold(held: boolean): void;
  /** Stops sshd and the remote daemon, and removes the directory. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function writeExecutable(file: string, text: string): void {
  fs.writeFileSync(file, text, { mode: 0o755 });
}

export interface SshServerOptions {
  /** Put this build's `holdfast` on the remote PATH (default); false: a remote that has no Holdfast. */
  holdfastOnPath?: boolean;
  /** More aliases of the same server and user, each logging in with its own key and these variables changed. */
  aliases?: Record<string, NodeJS.ProcessEnv>;
  /** The CLI bundle the remote's `holdfast` runs (default: this build's). */
  cliScript?: string;
}

/** Starts sshd on 127.0.0.1 and waits until it accepts a login. */
export async function startSshServer(options: SshServerOptions = {}): Promise<SshServer> {
  const cliScript = options.cliScript ?? CLI_SCRIPT;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-sshd-'));
  fs.chmodSync(dir, 0o700);
  const remote = path.join(dir, 'remote');
  const home = path.join(remote, 'home');
  const run = path.join(remote, 'run');
  const bin = path.join(remote, 'bin');
  for (const d of [home, run, bin]) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  writeExecutable(path.join(bin, 'holdfast'), `#!/bin/sh\nexec "${process.execPath}" "${cliScript}" "$@"\n`);
  const remoteEnv: NodeJS.ProcessEnv = {
    HOME: home,
    XDG_RUNTIME_DIR: run,
    XDG_STATE_HOME: path.join(home, 'state'),
    XDG_CONFIG_HOME: path.join(home, 'config'),
    PATH: `${options.holdfastOnPath === false ? '' : `${bin}:`}/usr/local/bin:/usr/bin:/bin`,
  };

  const hostKey = path.join(dir, 'host_key');
  const userKey = path.join(dir, 'user_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', userKey]);
  const authorizedLine = (key: string, env: NodeJS.ProcessEnv) =>
    `${Object.entries(env)
      .map(([k, v]) => `environment="${k}=${v}"`)
      .join(',')} ${fs.readFileSync(`${key}.pub`, 'utf8')}`;
  const aliases = Object.entries(options.aliases ?? {}).map(([alias, env]) => {
    const key = path.join(dir, `key_${alias}`);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    return { alias, key, line: authorizedLine(key, { ...remoteEnv, ...env }) };
  });
  const authorized = path.join(dir, 'authorized_keys');
  fs.writeFileSync(authorized, [authorizedLine(userKey, remoteEnv), ...aliases.map((a) => a.line)].join(''));

  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      'PermitUserEnvironment yes',
      'UsePAM no',
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const sshd: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let sshdLog = '';
  sshd.stderr!.on('data', (chunk: Buffer) => (sshdLog += chunk.toString()));

  const knownHosts = path.join(dir, 'known_hosts');
  fs.writeFileSync(knownHosts, `[127.0.0.1]:${port} ${fs.readFileSync(`${hostKey}.pub`, 'utf8')}`);
  const emptyKnownHosts = path.join(dir, 'known_hosts.empty');
  fs.writeFileSync(emptyKnownHosts, '');
  const closedPort = await freePort();
  const sshConfig = path.join(dir, 'ssh_config');
  const common = [
    '  HostName 127.0.0.1',
    `  User ${os.userInfo().username}`,
    `  IdentityFile ${userKey}`,
    '  IdentitiesOnly yes',
    '  StrictHostKeyChecking yes',
    '  LogLevel ERROR',
    // OpenSSH 9's default key exchange (sntrup761) costs ~0.1 CPU-s a login, ten times curve25519's: a host test
    // logs in 30-40 times, and proves nothing about the key exchange.
    '  KexAlgorithms curve25519-sha256',
  ];
  fs.writeFileSync(
    sshConfig,
    [
      `Host ${REMOTE}`,
      `  Port ${port}`,
      `  UserKnownHostsFile ${knownHosts}`,
      ...common,
      `Host ${UNKNOWN_KEY}`,
      `  Port ${port}`,
      `  UserKnownHostsFile ${emptyKnownHosts}`,
      ...common,
      `Host ${NOBODY_THERE}`,
      `  Port ${closedPort}`,
      `  UserKnownHostsFile ${knownHosts}`,
      ...common,
      ...aliases.flatMap((a) => [
        `Host ${a.alias}`,
        `  Port ${port}`,
        `  UserKnownHostsFile ${knownHosts}`,
        ...common.map((line) => (line.startsWith('  IdentityFile') ? `  IdentityFile ${a.key}` : line)),
      ]),
      '',
    ].join('\n'),
  );
  const sshProgram = path.join(dir, 'ssh');
  const holdFile = path.join(dir, 'hold');
  writeExecutable(
    sshProgram,
    `#!/bin/sh\nwhile [ -e "${holdFile}" ]; do sleep 0.1; done\nexec ssh -F "${sshConfig}" "$@"\n`,
  );

  await waitFor(
    () => {
      try {
        execFileSync(sshProgram, ['-o', 'BatchMode=yes', REMOTE, 'true'], { stdio: 'ignore', timeout: 20_000 });
        return true;
      } catch {
        if (sshd.exitCode !== null) throw new Error(`sshd exited ${sshd.exitCode}: ${sshdLog}`);
        return false;
      }
    },
    30_000,
    'sshd to accept a login',
  );

  return {
    dir,
    port,
    remoteEnv,
    sshProgram,
    hold(held) {
      if (held) fs.writeFileSync(holdFile, '');
      else fs.rmSync(holdFile, { force: true });
    },
    async stop() {
      // The remote daemon is a child of nobody here: stop it through its own CLI, then sshd.
      try {
        execFileSync(process.execPath, [cliScript, 'stop'], { env: remoteEnv, stdio: 'ignore', timeout: 20_000 });
      } catch {
        // no remote daemon was running
      }
      if (sshd.exitCode === null) {
        const gone = new Promise((resolve) => sshd.once('exit', resolve));
        sshd.kill('SIGTERM');
        await gone;
      }
      // Whatever still runs as the remote user (a daemon started by a bridge, a successor) writes into its HOME
      // while the tree is removed: ended first.
      const remaining = remoteProcesses(home);
      for (const pid of remaining) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // it ended by itself meanwhile: nothing to end
        }
      }
      await waitFor(() => !remaining.some(isAlive), 10_000, "the remote user's processes to end");
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/** Processes whose environment's HOME is the remote user's (`home`): what runs "on the host". */
function remoteProcesses(home: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`HOME=${home}`)) pids.push(pid);
    } catch {
      // ended meanwhile, or not ours to read
    }
  }
  return pids;
}

/**
 * A CLI sandbox whose `holdfast` reaches hosts through `sshd`; with `hosts`, it knows them (its config.json's
 * "hosts"), else a test names them itself (the window's holdfast.hosts).
 */
export function hostsSandbox(sshd: SshServer, hosts?: readonly object[]): CliSandbox {
  const box = cliSandbox();
  box.env.HOLDFAST_SSH = sshd.sshProgram;
  if (!hosts) return box;
  box.env.XDG_CONFIG_HOME = path.join(box.dir, 'config');
  fs.mkdirSync(path.join(box.env.XDG_CONFIG_HOME, 'holdfast'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(box.env.XDG_CONFIG_HOME, 'holdfast', 'config.json'), JSON.stringify({ hosts }));
  return box;
}

/** A plain bash with a `$ ` prompt, as `holdfast new` arguments. */
export const BASH = ['--env', 'PS1=$ ', '--', 'bash', '--norc', '--noprofile'];

/** The ssh processes of this test process running a host's bridge (to kill one, as a dropped network would). */
export function bridgeSshPids(): number[] {
  const children = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim();
  return children
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('bridge');
      } catch {
        return false;
      }
    });
}
