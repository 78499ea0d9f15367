// On Linux with a systemd user manager, the daemon starts in its own transient scope: otherwise
// stopping the editor's unit or cgroup (KillMode=control-group/mixed) would take the daemon and
// every session with it. Where `systemd-run --user --scope` does not work, start it plainly.
import { execFile } from 'node:child_process';

let probe: Promise<boolean> | undefined;

/** Whether `systemd-run --user --scope` works here. Asked once per extension host. */
export function systemdScopeWorks(env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (process.platform !== 'linux') return Promise.resolve(false);
  probe ??= new Promise<boolean>((resolve) => {
    execFile('systemd-run', ['--user', '--scope', '--quiet', '--collect', 'true'], { timeout: 3000, env }, (err) =>
      resolve(!err),
    );
  });
  return probe;
}

/** The command prefix that runs the daemon in its own scope. */
export function systemdScopePrefix(): string[] {
  return ['systemd-run', '--user', '--scope', '--quiet', '--collect', '--description=Holdfast terminal daemon'];
}
