// After a reload VS Code finds its terminal panel empty (it never revives extension terminals)
// and opens a default shell there, moments before our restored tabs arrive: the user would get a
// stray new shell with every reload. Once our tabs are back, that one shell is closed again, but
// only when it is certainly VS Code's startup shell: the only other terminal in the window,
// started seconds ago, never touched, created with no name or command of its own.
import * as vscode from 'vscode';
import { DisposableStore, timeout } from '../protocol/disposable';
import { processAgeSeconds } from './processAge';

/** Terminals opened this long after activation may be VS Code's startup shell. */
const STARTUP_WINDOW_MS = 30_000;
/** After our tabs are back, a startup shell opening this soon is still VS Code's. */
const ARMED_MS = 3000;
/** The startup shell's process may take a while to exist (the editor resolves the shell environment first). */
const PID_WAIT_MS = 15_000;
/** A startup shell's process is younger than this. */
const MAX_AGE_S = 60;

export class StartupTerminalSweep implements vscode.Disposable {
  private readonly store = new DisposableStore();
  private readonly candidates = new Set<vscode.Terminal>();
  private readonly startedAt = Date.now();
  private armedUntil = 0;
  private done = false;

  constructor(
    private readonly isOurs: (terminal: vscode.Terminal) => boolean,
    private readonly log: vscode.LogOutputChannel,
  ) {
    for (const t of vscode.window.terminals) this.candidates.add(t);
    this.store.add(
      vscode.window.onDidOpenTerminal((t) => {
        if (Date.now() - this.startedAt > STARTUP_WINDOW_MS) return;
        this.candidates.add(t);
        // VS Code's startup shell often opens just after our tabs (it decided before they arrived).
        if (Date.now() < this.armedUntil) void this.check();
      }),
    );
    this.store.add(vscode.window.onDidCloseTerminal((t) => this.candidates.delete(t)));
  }

  /** Call once our tabs are restored. Closes VS Code's untouched startup shell now or when it opens soon after. */
  sweep(restored: number): void {
    if (restored === 0 || process.platform !== 'linux') return this.dispose();
    this.armedUntil = Date.now() + ARMED_MS;
    this.store.add(timeout(ARMED_MS + PID_WAIT_MS, () => this.dispose()));
    void this.check();
  }

  private checking: Promise<void> | undefined;

  private check(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    if (this.done) return;
    const foreign = vscode.window.terminals.filter((t) => !this.isOurs(t) && t.exitStatus === undefined);
    this.log.debug(`startup shell check: ${foreign.map((t) => this.describe(t)).join('; ')}`);
    if (foreign.length !== 1) return;
    const [terminal] = foreign;
    const options = terminal.creationOptions as vscode.TerminalOptions;
    if (
      !this.candidates.has(terminal) ||
      terminal.state.isInteractedWith ||
      options.name ||
      options.shellPath ||
      ('pty' in options && options.pty)
    )
      return;
    const pid = await Promise.race([
      terminal.processId,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), PID_WAIT_MS)),
    ]);
    const age = pid === undefined ? undefined : processAgeSeconds(pid);
    this.log.debug(`startup shell check: pid ${pid} age ${age}`);
    if (
      this.done ||
      age === undefined ||
      age > MAX_AGE_S ||
      terminal.state.isInteractedWith ||
      terminal.exitStatus !== undefined
    )
      return;
    this.done = true;
    this.log.info(
      `closed VS Code's startup shell "${terminal.name}" (pid ${pid}, ${Math.round(age)}s old, untouched): ` +
        'the restored Holdfast tabs replace it',
    );
    terminal.dispose();
  }

  private describe(t: vscode.Terminal): string {
    const options = JSON.stringify(t.creationOptions);
    return `"${t.name}" candidate=${this.candidates.has(t)} touched=${t.state.isInteractedWith} options=${options}`;
  }

  dispose(): void {
    this.done = true;
    this.store.dispose();
  }
}
