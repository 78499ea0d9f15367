// `holdfast host install H`: this Holdfast copied to a host that lacks it, over ssh as the frames go. A probe learns
// the host's platform (`uname -sm`), its node and its installs; the receiver (installScripts.ts) takes the payload
// (installPayload.ts) as a tar stream into a versioned folder of ~/.holdfast. Every refusal is one line naming what
// is missing. See docs/hosts.md.
import { z } from 'zod';
import { currentTarget, type Target } from '../host/nodePtyBinary';
import { oneLine, printable } from '../text/printable';
import { DEFAULT_HOST_TIMEOUT_MS, type HostEntry, hostName } from './hosts';
import { INSTALL_ROOT_SHOWN, probeCommand, receiveCommand, REFUSED_STATUS } from './installScripts';
import { installName, installPayload, type NodeChoice, runtimeFiles, tarStream } from './installPayload';
import { sshRun } from './sshRun';

/** The oldest node the daemon runs on (package.json's engines). */
export const NODE_MAJOR = 20;

/** An install that cannot be made as asked: one line saying what is missing or wrong. */
export class InstallRefused extends Error {}

/** `uname -sm` words of the platforms Holdfast has node-pty binaries for, in Node's names. */
const TARGETS: Record<string, Target> = {
  'Linux x86_64': 'linux-x64',
  'Linux amd64': 'linux-x64',
  'Linux aarch64': 'linux-arm64',
  'Linux arm64': 'linux-arm64',
  'Darwin x86_64': 'darwin-x64',
  'Darwin arm64': 'darwin-arm64',
};

const word = z
  .string()
  .max(256)
  .regex(/^[\x21-\x7e]+$/);
/** What the probe says: the host's words, each line checked; anything else on its stdout is ignored. */
const probeSchema = z.object({
  uname: z.string().max(256),
  node: z.union([
    z.object({
      version: word,
      path: z
        .string()
        .max(4096)
        .regex(/^\/[^\x00-\x1f\x7f]*$/),
    }),
    z.null(),
  ]),
  installed: z.array(z.string().regex(/^[A-Za-z0-9._-]{1,128}$/)).max(1000),
});
export type HostProbe = z.infer<typeof probeSchema>;

/** Reads the probe's stdout (installScripts.ts's PROBE); undefined when it is not the probe's whole answer. */
export function parseProbe(stdout: string): HostProbe | undefined {
  const lines = stdout.split('\n');
  if (!lines.includes('end')) return undefined;
  const uname = lines.find((l) => l.startsWith('uname '))?.slice(6);
  const nodeLine = /^node (v\S+) (\/.*)$/.exec(lines.find((l) => l.startsWith('node ')) ?? '');
  const parsed = probeSchema.safeParse({
    uname,
    node: nodeLine ? { version: nodeLine[1], path: nodeLine[2] } : null,
    installed: lines.filter((l) => l.startsWith('installed ')).map((l) => l.slice(10)),
  });
  return parsed.success ? parsed.data : undefined;
}

/** The node-pty target of a host's `uname -sm`, or undefined for a platform Holdfast has no binary for. */
export function unameTarget(uname: string): Target | undefined {
  return TARGETS[uname.trim().split(/\s+/).join(' ')];
}

function nodeMajor(version: string): number {
  return Number(/^v(\d+)\./.exec(version)?.[1] ?? 0);
}

/** Why this machine's node cannot run on a host of `target`, or undefined when it can be sent there. */
export function nodeCopyProblem(target: Target): string | undefined {
  if (process.versions.electron) return "this machine's node is VS Code's (Electron), not a plain node";
  if (target !== currentTarget()) return `this machine is ${currentTarget()}`;
  const config = process.config as { variables?: { node_shared?: boolean } };
  if (config.variables?.node_shared) return "this machine's node is built on a shared libnode (not one file)";
  if (nodeMajor(process.version) < NODE_MAJOR) return `this machine's node is ${process.version}`;
  return undefined;
}

export interface InstallOptions {
  /** Send this machine's node when the host has no Node 20+ (the user agreed). */
  copyNode?: boolean;
}

export interface InstallResult {
  host: string;
  /** The install's folder on the host, as shown: ~/.holdfast/NAME. */
  dir: string;
  name: string;
  target: Target;
  /** The node it runs with there: a path on the host, or "sent" (this machine's, in the install folder). */
  node: string;
  /** False when the host had this build already: nothing was sent. */
  installed: boolean;
  bytes: number;
}

function probeNode(name: string, probe: HostProbe, target: Target, options: InstallOptions): NodeChoice {
  const found = probe.node;
  if (found && nodeMajor(found.version) >= NODE_MAJOR) return { kind: 'host', path: found.path };
  const problem = nodeCopyProblem(target);
  if (options.copyNode && !problem) return { kind: 'copy', source: process.execPath };
  const has = found ? `node ${printable(found.version)} (${printable(found.path)})` : 'no node on the PATH';
  const fix = problem
    ? `install Node ${NODE_MAJOR} or later there (${problem}, so it cannot be sent)`
    : `install Node ${NODE_MAJOR} or later there, or send this machine's (${process.version}): ` +
      `\`holdfast host install ${name} --copy-node\``;
  throw new InstallRefused(`${name} has ${has}; the daemon needs Node ${NODE_MAJOR} or later: ${fix}`);
}

/** What the host said on stderr, as one printable line. */
function lastLine(text: string): string {
  const line = printable(oneLine(text.trim().split('\n').at(-1) ?? ''));
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** Installs this build on `host` unless it is there already; refuses in one line what it cannot do. */
export async function installHoldfast(
  host: HostEntry,
  env: NodeJS.ProcessEnv,
  options: InstallOptions = {},
): Promise<InstallResult> {
  const name = hostName(host);
  const timeoutMs = host.timeoutMs ?? DEFAULT_HOST_TIMEOUT_MS;
  const probed = await sshRun(host, env, probeCommand(), { timeoutMs });
  const probe = parseProbe(probed.stdout);
  if (probed.status !== 0 || !probe)
    throw new InstallRefused(
      `${name} did not answer the install's probe (status ${probed.status}): ${lastLine(probed.stderr)}`,
    );
  const target = unameTarget(probe.uname);
  if (!target)
    throw new InstallRefused(
      `${name} is ${printable(probe.uname) || 'a platform uname does not name'}: Holdfast installs on Linux and ` +
        `macOS, x64 and arm64 only`,
    );
  let files;
  try {
    files = runtimeFiles(target);
  } catch (err) {
    throw new InstallRefused(`cannot install on ${name} (${target}): ${(err as Error).message}`);
  }
  const folder = installName(files);
  const dir = `${INSTALL_ROOT_SHOWN}/${folder}`;
  const done = { host: name, dir, name: folder, target };
  if (probe.installed.includes(folder)) return { ...done, node: 'as installed', installed: false, bytes: 0 };
  const node = probeNode(name, probe, target, options);
  const payload = installPayload(files, node);
  const received = await sshRun(host, env, receiveCommand(payload.name, payload.sumsDigest), {
    input: tarStream(payload),
  });
  if (received.status === REFUSED_STATUS)
    throw new InstallRefused(`${name} refused the install: ${lastLine(received.stderr)}`);
  if (received.status !== 0 || !/^(installed|present)$/m.test(received.stdout))
    throw new InstallRefused(
      `the install on ${name} failed (status ${received.status}): ${lastLine(received.stderr) || 'no reason given'}`,
    );
  return {
    ...done,
    node: node.kind === 'copy' ? `${process.version}, sent` : node.path,
    installed: /^installed$/m.test(received.stdout),
    bytes: payload.bytes,
  };
}
