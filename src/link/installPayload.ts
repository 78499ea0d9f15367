// What `holdfast host install` sends a host: this Holdfast's daemon and CLI bundles, node-pty's run-time files with
// the binary for the host's platform, and, when asked, this machine's node; with their checksums (SHA256SUMS) and
// two launchers. Sent as a ustar stream (tar is on every host we install on) of regular files and folders only,
// each private (0600, 0700) whatever the receiving tar does with modes.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { bundleDir, nodePtyDir, RUNTIME_BUNDLES } from '../host/bundles';
import { nodePtyRuntimeFiles, type Target } from '../host/nodePtyBinary';
import { VERSION } from '../protocol/version';
import { shellQuote } from '../text/shellQuote';
import { INSTALL_ROOT } from './installScripts';

export interface PayloadFile {
  /** Inside the install folder, with "/" between parts. */
  path: string;
  /** Where its bytes come from here, or the bytes themselves (a launcher). */
  source: string | Buffer;
  executable: boolean;
  size: number;
  sha256: string;
}

export interface InstallPayload {
  /** The install folder's name: this version and a digest of what runs (the same build, the same folder). */
  name: string;
  files: PayloadFile[];
  /** The checksum of SHA256SUMS, given to the receiver on its command line. */
  sumsDigest: string;
  bytes: number;
}

/** The host's node: its absolute path there, or this machine's node to be sent with the install. */
export type NodeChoice = { kind: 'host'; path: string } | { kind: 'copy'; source: string };

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function fromFile(rel: string, source: string): PayloadFile {
  const data = fs.readFileSync(source);
  const executable = (fs.statSync(source).mode & 0o111) !== 0 || rel.endsWith('.node') || rel.endsWith('/spawn-helper');
  return { path: rel, source, executable, size: data.length, sha256: sha256(data) };
}

function fromText(rel: string, text: string, executable: boolean): PayloadFile {
  const data = Buffer.from(text, 'utf8');
  return { path: rel, source: data, executable, size: data.length, sha256: sha256(data) };
}

/** The files every install of this build holds for `target`: its bundles and node-pty's (no source maps). */
export function runtimeFiles(target: Target): PayloadFile[] {
  const dist = bundleDir();
  const ptyDir = nodePtyDir();
  const bundles = RUNTIME_BUNDLES.map((file) => fromFile(`dist/${file}`, path.join(dist, file)));
  const pty = nodePtyRuntimeFiles(ptyDir, target).map((rel) =>
    fromFile(`node_modules/node-pty/${rel.split(path.sep).join('/')}`, path.join(ptyDir, rel)),
  );
  return [...bundles, ...pty];
}

/** The install's name: `VERSION-DIGEST` of what runs, so a rebuilt build (same version) gets its own folder. */
export function installName(files: readonly PayloadFile[]): string {
  const digest = createHash('sha256');
  for (const file of files) digest.update(`${file.path}\0${file.sha256}\n`);
  return `${VERSION.replace(/[^A-Za-z0-9._-]/g, '_')}-${digest.digest('hex').slice(0, 12)}`;
}

/** Everything sent for `target`, the launchers pointing at the host's node (or the copy sent with it). */
export function installPayload(files: readonly PayloadFile[], node: NodeChoice): InstallPayload {
  const name = installName(files);
  const folder = `"${INSTALL_ROOT}/${name}"`;
  const all = [...files];
  if (node.kind === 'copy') all.push(fromFile('node', node.source));
  const nodeCommand = node.kind === 'copy' ? `${folder}/node` : shellQuote(node.path);
  all.push(fromText('holdfast', `#!/bin/sh\nexec ${nodeCommand} ${folder}/dist/cli.js "$@"\n`, true));
  // The newest install's launcher (INSTALLED_LAUNCHER), copied into place by the receiver.
  all.push(fromText('.launcher', `#!/bin/sh\nexec ${folder}/holdfast "$@"\n`, true));
  const sums = all.map((file) => `${file.sha256}  ${file.path}\n`).join('');
  all.push(fromText('SHA256SUMS', sums, false));
  return {
    name,
    files: all,
    sumsDigest: sha256(Buffer.from(sums, 'utf8')),
    bytes: all.reduce((n, file) => n + file.size, 0),
  };
}

const BLOCK = 512;

/** A ustar header of a regular file ('0') or a folder ('5'). */
function tarHeader(name: string, size: number, mode: number, type: '0' | '5'): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`a path too long for the install's tar stream: ${name}`);
  const header = Buffer.alloc(BLOCK);
  const octal = (value: number, width: number, at: number) =>
    header.write(`${value.toString(8).padStart(width - 1, '0')}\0`, at, 'latin1');
  header.write(name, 0, 'utf8');
  octal(mode, 8, 100);
  octal(0, 8, 108);
  octal(0, 8, 116);
  octal(size, 12, 124);
  octal(Math.floor(Date.now() / 1000), 12, 136);
  header.write(type, 156, 'latin1');
  header.write('ustar\x0000', 257, 'latin1');
  header.fill(' ', 148, 156); // the checksum is summed with its own field as spaces
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return header;
}

async function* tarChunks(files: readonly PayloadFile[]): AsyncGenerator<Buffer> {
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const folder = `${parts.slice(0, i).join('/')}/`;
      if (folders.has(folder)) continue;
      folders.add(folder);
      yield tarHeader(folder, 0, 0o700, '5');
    }
    yield tarHeader(file.path, file.size, file.executable ? 0o700 : 0o600, '0');
    if (Buffer.isBuffer(file.source)) yield file.source;
    else {
      let sent = 0;
      for await (const chunk of fs.createReadStream(file.source)) {
        const bytes = chunk as Buffer;
        // A file that grew since it was summed: the header said its size, so no more is sent (the checksum fails).
        const room = file.size - sent;
        if (room <= 0) break;
        yield bytes.length > room ? bytes.subarray(0, room) : bytes;
        sent += Math.min(bytes.length, room);
      }
      if (sent < file.size) yield Buffer.alloc(file.size - sent); // shrank: padded, and the checksum fails
    }
    const pad = (BLOCK - (file.size % BLOCK)) % BLOCK;
    if (pad > 0) yield Buffer.alloc(pad);
  }
  yield Buffer.alloc(BLOCK * 2);
}

/** The payload as a tar stream (read lazily: a node binary is not held in memory). */
export function tarStream(payload: InstallPayload): Readable {
  return Readable.from(tarChunks(payload.files), { objectMode: false });
}
