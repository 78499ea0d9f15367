// The socket's directory in a shared temp dir (no XDG_RUNTIME_DIR and no logind /run/user/UID):
// TMP/holdfast-UID, unless another user made that name first (anyone can create names in a sticky
// /tmp, and only root could remove theirs). Then a name of our own choosing, TMP/holdfast-UID-XXXXXX
// (mkdtemp: another user cannot guess it before it exists), written down in the private state dir so
// every client of the user finds it again; if that one is taken too (its name was seen, and it was
// gone after a reboot), a new one. The rules on the directory itself stay endpointTrust.ts's.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The file in the state dir that names the directory chosen. */
export const CHOSEN_DIR_FILE = 'socket-dir';

function uidNow(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

/** Ours (or not there yet): a directory we may use or make. */
function freeOrOurs(dir: string): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  return !st || st.uid === uidNow();
}

/** The name written down, when the file is ours, private, and holds a name of this form. */
function readChosen(file: string, prefix: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined; // none yet (or a symlink: not ours to follow)
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.uid !== uidNow() || (st.mode & 0o077) !== 0) return undefined;
    const name = fs.readFileSync(fd, 'utf8').trim();
    return new RegExp(`^${prefix}-[A-Za-z0-9]{6}$`).test(name) ? name : undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `name` down: only where nothing is written yet, or over `replacing` (a taken one). */
function writeChosen(file: string, name: string, replacing: boolean): void {
  const temp = `${file}.${process.pid}.${Date.now()}`;
  fs.writeFileSync(temp, `${name}\n`, { mode: 0o600, flag: 'wx' });
  try {
    if (replacing) fs.renameSync(temp, file);
    else fs.linkSync(temp, file); // EEXIST: another client wrote one first, which wins
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * The directory for the socket under `tmp`: `tmp/holdfast-UID` when it is free or ours, else the one
 * named in `stateDir/socket-dir`, made (or chosen anew) when needed. Falls back to `tmp/holdfast-UID`
 * (which the trust rules then refuse, naming the fix) when the state dir cannot hold the name.
 */
export function tempSocketDir(tmp: string, stateDir: string): string {
  const prefix = `holdfast-${uidNow()}`;
  const canonical = path.join(tmp, prefix);
  if (freeOrOurs(canonical)) return canonical;
  const file = path.join(stateDir, CHOSEN_DIR_FILE);
  try {
    const stateSt = fs.lstatSync(stateDir, { throwIfNoEntry: false });
    if (!stateSt) fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    else if (!stateSt.isDirectory() || stateSt.uid !== uidNow() || (stateSt.mode & 0o022) !== 0) return canonical;
    for (let attempt = 0; attempt < 3; attempt++) {
      const written = readChosen(file, prefix);
      if (written !== undefined) {
        const dir = path.join(tmp, written);
        if (freeOrOurs(dir)) {
          fs.mkdirSync(dir, { mode: 0o700, recursive: true });
          if (freeOrOurs(dir)) return dir;
        }
      }
      // None yet, taken by someone else, or the file is not one we wrote: a new name, made before it is
      // written down.
      const made = fs.mkdtempSync(path.join(tmp, `${prefix}-`));
      try {
        writeChosen(file, path.basename(made), fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined);
      } catch (err) {
        fs.rmSync(made, { recursive: true, force: true });
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        continue; // another client of ours chose first: take theirs
      }
      // Two of ours replacing a taken name at once: the last one written is everyone's.
      if (readChosen(file, prefix) === path.basename(made)) return made;
      fs.rmSync(made, { recursive: true, force: true });
    }
  } catch {
    // The state dir cannot hold the name (read-only, full): the trust rules refuse the canonical one.
  }
  return canonical;
}
