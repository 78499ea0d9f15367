// `holdfast host install|upgrade H`: this Holdfast copied to an SSH host that lacks it, and an older daemon there
// handed over to it (src/link/hostInstall.ts, hostUpgrade.ts; docs/hosts.md).
import { InstallRefused, installHoldfast, type InstallResult } from '../../link/hostInstall';
import { upgradeHost } from '../../link/hostUpgrade';
import { LOCAL_HOST, readHosts, resolveHost } from '../../link/hosts';
import { SCOPE_TOKEN_ENV } from '../../host/endpointTrust';
import { boolOpt, expectPositionals } from '../args';
import type { Command, Context } from '../command';
import { CliError, ExitCode, usageError } from '../errors';

const VERBS = ['install', 'upgrade'];

function installLine(install: InstallResult): string {
  if (!install.installed) return `${install.host}: ${install.dir} is there already (${install.target})`;
  const mib = (install.bytes / 1024 / 1024).toFixed(1);
  return `${install.host}: installed ${install.dir} (${install.target}, node ${install.node}; ${mib} MiB sent)`;
}

function target(ctx: Context) {
  const [verb, ref] = ctx.args.positionals;
  if (verb === undefined) throw usageError(`missing subcommand (${VERBS.join(', ')})`);
  if (!VERBS.includes(verb)) throw usageError(`unknown subcommand "${verb}" (${VERBS.join(', ')})`);
  if (ref === undefined) throw usageError('missing HOST (a hosts entry of config.json, or an ssh target)');
  const host = resolveHost(ref, readHosts(ctx.env));
  if (!host || ref === LOCAL_HOST) throw usageError(`"${LOCAL_HOST}" is this machine: \`holdfast upgrade\` is its own`);
  // As --host: a scoped credential's holder gets nothing done on other hosts through this user's keys.
  if (ctx.env[SCOPE_TOKEN_ENV])
    throw new CliError(ExitCode.Failed, 'forbidden', `this shell has a scoped credential (${SCOPE_TOKEN_ENV})`);
  return { verb, host };
}

async function refusedInOneLine<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof InstallRefused) throw new CliError(ExitCode.Failed, 'refused', err.message);
    throw err;
  }
}

export const hostCommand: Command = {
  name: 'host',
  summary: 'install this Holdfast on an SSH host, or hand its older daemon over to this version',
  usage: 'host install|upgrade HOST [--copy-node]',
  options: {
    'copy-node': {
      type: 'boolean',
      help: "send this machine's node too, when the host has no Node 20+ (same platform, a plain node)",
    },
  },
  here: 'names its host itself (HOST)',
  details: [
    "install: copies this Holdfast's daemon and CLI bundles, and node-pty's binary for the host's platform " +
      '(`uname -sm` there), over ssh into ~/.holdfast/VERSION-DIGEST/ (a 0700 folder, checked; the files checked by ' +
      'SHA256). ~/.holdfast/holdfast then runs the newest install, and `--host HOST` finds it when holdfast is not ' +
      'on the PATH there. Installed already: nothing is sent.',
    "upgrade: installs, then, if the host's daemon is older than this Holdfast, runs the install's " +
      '`holdfast upgrade` there: a new daemon takes over every session, the programs keep their PIDs.',
  ],
  async run(ctx) {
    expectPositionals(ctx.args, 2, 2, 'install|upgrade HOST');
    const { verb, host } = target(ctx);
    const options = { copyNode: boolOpt(ctx.args, 'copy-node') };
    if (verb === 'install') {
      const install = await refusedInOneLine(() => installHoldfast(host, ctx.env, options));
      return { data: install, text: installLine(install) };
    }
    const upgraded = await refusedInOneLine(() => upgradeHost(host, ctx.env, options));
    const handed = upgraded.to
      ? `daemon ${upgraded.from?.pid} (${upgraded.from?.version}) → ${upgraded.to.pid}: ` +
        `${upgraded.to.sessions} session${upgraded.to.sessions === 1 ? '' : 's'} kept`
      : upgraded.kept;
    return { data: upgraded, text: `${installLine(upgraded.install)}\n${upgraded.install.host}: ${handed}` };
  },
};
