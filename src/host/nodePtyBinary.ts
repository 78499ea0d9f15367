// Which platform a node-pty native binary is for, read from its header (ELF, Mach-O, PE), and
// which of node-pty's folders holds the one for this machine. One home for the rule: the daemon's
// copy (extension/daemonInstall.ts), both doctors and the per-target .vsix check use it.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** `<platform>-<arch>` in Node's words, e.g. `linux-x64`, `darwin-arm64`. */
export type Target = string;

export function currentTarget(): Target {
  return `${process.platform}-${process.arch}`;
}

/** ELF e_machine, Mach-O cputype and PE machine values of the architectures node-pty ships for. */
const ELF_MACHINES: Record<number, string> = { 0x3e: 'x64', 0xb7: 'arm64' };
const MACHO_CPUS: Record<number, string> = { 0x01000007: 'x64', 0x0100000c: 'arm64' };
const PE_MACHINES: Record<number, string> = { 0x8664: 'x64', 0xaa64: 'arm64' };

/** The target a binary's header names, or undefined when the file is not one we can read. */
export function binaryTarget(file: string): Target | undefined {
  let head: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      head = Buffer.alloc(4096);
      head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined; // missing or unreadable: not a binary for any target
  }
  return headerTarget(head);
}

export function headerTarget(head: Buffer): Target | undefined {
  // ELF, little-endian (EI_DATA 1): e_machine at 18. The OS ABI byte is 0 on Linux builds, so ELF means linux here.
  if (head.length >= 20 && head.readUInt32BE(0) === 0x7f454c46 && head[5] === 1) {
    const a = ELF_MACHINES[head.readUInt16LE(18)];
    return a && `linux-${a}`;
  }
  // Mach-O 64-bit, little-endian (MH_MAGIC_64 0xfeedfacf): cputype at 4.
  if (head.length >= 8 && head.readUInt32LE(0) === 0xfeedfacf) {
    const a = MACHO_CPUS[head.readUInt32LE(4)];
    return a && `darwin-${a}`;
  }
  // PE: "MZ", the PE header's offset at 0x3c, its machine field 4 bytes after "PE\0\0".
  if (head.length >= 0x40 && head.toString('latin1', 0, 2) === 'MZ') {
    const pe = head.readUInt32LE(0x3c);
    if (pe + 6 > head.length || head.readUInt32BE(pe) !== 0x50450000) return undefined;
    const a = PE_MACHINES[head.readUInt16LE(pe + 4)];
    return a && `win32-${a}`;
  }
  return undefined;
}

/** A folder of node-pty's holding a pty.node, and the target its header names (undefined: unreadable). */
export interface PtyBinaryDir {
  /** Relative to node-pty's folder: `build/Release` or `prebuilds/<target>`. */
  dir: string;
  target: Target | undefined;
}

/** node-pty's binary folders in the order node-pty loads them (lib/utils.js): its own build, then prebuilds. */
export function ptyBinaryDirs(ptyDir: string): PtyBinaryDir[] {
  const dirs = [path.join('build', 'Release')];
  const prebuilds = path.join(ptyDir, 'prebuilds');
  if (fs.existsSync(prebuilds)) dirs.push(...fs.readdirSync(prebuilds).map((name) => path.join('prebuilds', name)));
  return dirs
    .filter((dir) => fs.existsSync(path.join(ptyDir, dir, 'pty.node')))
    .map((dir) => ({ dir, target: binaryTarget(path.join(ptyDir, dir, 'pty.node')) }));
}

/**
 * The folder whose pty.node node-pty will load on `target`: build/Release unless its header names
 * another target, else prebuilds/<target>. A header we cannot read is trusted, as node-pty would.
 */
export function ptyBinaryDirFor(ptyDir: string, target: Target = currentTarget()): string | undefined {
  const prebuilt = path.join('prebuilds', target);
  const found = ptyBinaryDirs(ptyDir).find(
    (d) => (d.dir === path.join('build', 'Release') || d.dir === prebuilt) && (d.target ?? target) === target,
  );
  return found?.dir;
}

/** One line saying that node-pty has no binary for `target`, and which targets it has. */
export function missingPtyBinary(ptyDir: string, target: Target = currentTarget()): string {
  const others = [...new Set(ptyBinaryDirs(ptyDir).flatMap((d) => (d.target ? [d.target] : [])))];
  const what =
    others.length === 1
      ? `this .vsix is for ${others[0]}`
      : others.length > 0
        ? `it has binaries for ${others.join(', ')} only`
        : 'it has none for any platform';
  return `node-pty has no binary for ${target} in ${ptyDir}: ${what}`;
}

/**
 * node-pty files the daemon needs at run time (the rest is sources and build inputs): its lib and
 * the one binary folder node-pty will load on `target` (this machine's unless said).
 */
export function nodePtyRuntimeFiles(ptyDir: string, target: Target = currentTarget()): string[] {
  const files = ['package.json'];
  const walk = (rel: string) => {
    const abs = path.join(ptyDir, rel);
    if (!fs.existsSync(abs)) return;
    for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (!entry.name.endsWith('.test.js') && !entry.name.endsWith('.map')) files.push(child);
    }
  };
  walk('lib');
  const binaries = ptyBinaryDirFor(ptyDir, target);
  if (!binaries) throw new Error(missingPtyBinary(ptyDir, target));
  for (const name of fs.readdirSync(path.join(ptyDir, binaries))) {
    // The native modules and macOS's spawn-helper; not object files or debug symbols.
    if (name.endsWith('.node') || name === 'spawn-helper') files.push(path.join(binaries, name));
  }
  return files;
}
