// The `holdfast.recovery.*` settings mirror the daemon's own config (`holdfast config`): a value
// set in VS Code is applied to the daemon on connect and on change; an empty one leaves the
// daemon's, so the CLI's `holdfast config set` keeps working for people who never touch settings.
// Only the user's own value counts (machine scope): the daemon's config holds for every session of every
// window, so a workspace's .vscode/settings.json (a cloned repository's) must not turn screen saving on
// or recovery off.
import * as vscode from 'vscode';
import type { HoldfastClient } from '../client/client';
import { DisposableStore } from '../base/disposable';
import { Capability } from '../protocol/messages';
import type { DaemonConnection } from './daemonConnection';

const MIRRORED = ['enabled', 'screenText', 'intervalSeconds', 'keep'] as const;

export class RecoverySettingsMirror implements vscode.Disposable {
  private readonly store = new DisposableStore();

  constructor(
    private readonly connection: DaemonConnection,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.store.add(connection.onDidConnect((client) => void this.apply(client)));
    this.store.add(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('holdfast.recovery') && connection.client) void this.apply(connection.client);
      }),
    );
    if (connection.client) void this.apply(connection.client);
  }

  private async apply(client: HoldfastClient): Promise<void> {
    if (!client.supports(Capability.Recovery)) return;
    const settings = vscode.workspace.getConfiguration('holdfast.recovery');
    try {
      const { config } = await client.request('config.get', {});
      for (const key of MIRRORED) {
        const value = settings.inspect<unknown>(key)?.globalValue;
        if (value === null || value === undefined || config.recovery[key] === value) continue;
        await client.request('config.set', { key: `recovery.${key}`, value });
        this.log.info(
          `daemon config: recovery.${key} set to ${JSON.stringify(value)} (from the setting holdfast.recovery.${key})`,
        );
      }
    } catch (err) {
      this.log.warn(`applying holdfast.recovery settings to the daemon: ${(err as Error).message}`);
    }
  }

  dispose(): void {
    this.store.dispose();
  }
}
