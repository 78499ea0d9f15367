// The peers: a private tmux server (its own -S socket and config) and programs under `script`
// (a kernel PTY with nothing but a copy loop in between), read through a pipe by the bench.
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Marker, now, onCleanup, procMemory, run, spawnTracked, waitExit } from './util';

export function hasTmux(): boolean {
  return ['/usr/bin/tmux', '/usr/local/bin/tmux', '/bin/tmux'].some((p) => fs.existsSync(p));
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const PEER_ENV = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
};

/** A program on a kernel PTY made by `script`, its output read through a pipe. */
export class ScriptPty {
  readonly child: ChildProcess;
  private listeners: ((chunk: Buffer) => void)[] = [];
  bytes = 0;
  firstOutputAt = 0;

  constructor(
    command: string,
    cols: number,
    rows: number,
    readonly label = command,
  ) {
    this.child = spawnTracked('script', ['-q', '-c', `stty cols ${cols} rows ${rows}; ${command}`, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: PEER_ENV(),
    });
    this.child.stdin!.on('error', () => undefined);
    this.child.stdout!.on('data', (chunk: Buffer) => {
      if (!this.firstOutputAt) this.firstOutputAt = now();
      this.bytes += chunk.length;
      for (const l of this.listeners) l(chunk);
    });
  }

  write(data: string): void {
    this.child.stdin!.write(data);
  }

  /** Resolves with the time the output contains `text` (only output from now on counts). */
  expect(text: string, timeoutMs = 120_000): Promise<number> {
    const marker = new Marker(text);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners = this.listeners.filter((l) => l !== listener);
        reject(new Error(`${this.label}: no "${text}" within ${timeoutMs} ms (${marker.bytes} bytes seen)`));
      }, timeoutMs);
      const listener = (chunk: Buffer) => {
        if (!marker.push(chunk)) return;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
        resolve(now());
      };
      this.listeners.push(listener);
    });
  }

  async close(): Promise<void> {
    this.child.stdin!.destroy();
    try {
      process.kill(-this.child.pid!, 'SIGHUP');
    } catch {
      // the process is already gone: nothing left to signal
    }
    await waitExit(this.child, 3000);
  }
}

export class TmuxServer {
  readonly socket: string;
  private readonly conf: string;
  private pidCache = 0;

  constructor(dir: string, historyLimit = 10_000) {
    this.socket = path.join(dir, 'tmux.sock');
    this.conf = path.join(dir, 'tmux.conf');
    // No status line (the pane gets the whole client size), the same scrollback as the session.
    fs.writeFileSync(
      this.conf,
      `set -g status off\nset -g history-limit ${historyLimit}\n` +
        'set -g default-terminal xterm-256color\nset -g escape-time 0\n',
    );
    onCleanup(() => this.kill());
  }

  async cmd(...args: string[]): Promise<string> {
    const { code, stdout, stderr } = await run('tmux', ['-S', this.socket, '-f', this.conf, ...args], {
      env: PEER_ENV(),
    });
    if (code !== 0) throw new Error(`tmux ${args.join(' ')}: ${stderr.trim() || `exit ${code}`}`);
    return stdout;
  }

  async newSession(name: string, cols: number, rows: number, command: string): Promise<void> {
    await this.cmd('new-session', '-d', '-s', name, '-x', String(cols), '-y', String(rows), command);
  }

  async killSession(name: string): Promise<void> {
    await this.cmd('kill-session', '-t', name).catch(() => undefined);
  }

  async pid(): Promise<number> {
    if (!this.pidCache) this.pidCache = Number((await this.cmd('display-message', '-p', '#{pid}')).trim());
    return this.pidCache;
  }

  async historySize(name: string): Promise<number> {
    return Number((await this.cmd('display-message', '-p', '-t', name, '#{history_size}')).trim());
  }

  /** A client attached in a kernel PTY (`script`), as a user in a terminal would be. */
  attach(name: string, cols: number, rows: number): ScriptPty {
    return new ScriptPty(
      `exec tmux -S ${shellQuote(this.socket)} attach -t ${shellQuote(name)}`,
      cols,
      rows,
      `tmux attach ${name}`,
    );
  }

  memory(): ReturnType<typeof procMemory> {
    return procMemory(this.pidCache);
  }

  async kill(): Promise<void> {
    const pid = this.pidCache;
    await run('tmux', ['-S', this.socket, 'kill-server'], { env: PEER_ENV() }, 10_000).catch(() => undefined);
    if (pid) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // the process is already gone: nothing left to signal
      }
    }
  }
}

export { shellQuote };
