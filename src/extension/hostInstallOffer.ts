// A host without Holdfast, or whose daemon is older than this one, is offered the fix once per host and state: a
// notification beside its section's failure line, whose action installs this Holdfast there (src/link/hostInstall.ts)
// or hands its daemon over to it (hostUpgrade.ts). Nothing is sent to a host until the user clicks.
import type { IDisposable } from '../base/disposable';
import { installHoldfast } from '../link/hostInstall';
import { upgradeHost } from '../link/hostUpgrade';
import { VERSION } from '../protocol/version';
import { ui, uiText } from '../text/uiText';
import { type HostFix as Offer, hostFix } from './hostFix';
import type { Log } from './log';
import type { RemoteHost, RemoteHosts } from './remoteHosts';
import { showInformation, showStatusMessage, showWarning } from './ui';

/** Installs or upgrades, and says what was done in one line. */
async function fix(host: RemoteHost, offer: Offer): Promise<string> {
  // The extension's node is VS Code's: a host without Node 20+ is told so, never sent it (nodeCopyProblem).
  if (offer === 'install') {
    const done = await installHoldfast(host.entry, process.env);
    return `${done.dir} (${done.target}, node ${done.node})`;
  }
  const done = await upgradeHost(host.entry, process.env);
  return done.kept ?? `daemon ${done.from?.pid} → ${done.to?.pid}, ${done.to?.sessions} sessions kept`;
}

async function act(host: RemoteHost, offer: Offer, log: Log): Promise<void> {
  const name = uiText(host.name);
  const doing = offer === 'install' ? ui`install on` : ui`upgrade`;
  const busy = showStatusMessage(ui`Holdfast: ${doing} ${name}…`, 600_000);
  try {
    const line = await fix(host, offer);
    log.info(`host ${host.name}: ${offer}: ${line}`);
    host.connection.retryNow();
    void showInformation(ui`Holdfast on ${name}: ${uiText(line)}`);
  } catch (err) {
    const why = (err as Error).message;
    log.warn(`host ${host.name}: ${offer}: ${why}`);
    void showWarning(ui`Holdfast could not ${doing} ${name}: ${uiText(why)}`);
  } finally {
    busy.dispose();
  }
}

/** Follows the hosts; each offer is made once per host until its state no longer calls for it. */
export function offerHostFixes(remotes: RemoteHosts, log: Log): IDisposable {
  const offered = new Map<string, Offer>();
  return remotes.onDidChange(() => {
    for (const host of remotes.all) {
      const offer = hostFix(host.connection);
      if (offered.get(host.name) === offer) continue;
      if (!offer) {
        offered.delete(host.name);
        continue;
      }
      offered.set(host.name, offer);
      const message =
        offer === 'install'
          ? ui`Holdfast is not installed on ${uiText(host.name)}.`
          : ui`The Holdfast daemon on ${uiText(host.name)} is older than this one (${uiText(VERSION)}).`;
      const action =
        offer === 'install' ? ui`Install Holdfast on ${uiText(host.name)}` : ui`Upgrade ${uiText(host.name)}`;
      void showWarning(message, action).then((chosen) => {
        if (chosen === action) void act(host, offer, log);
      });
    }
  });
}
