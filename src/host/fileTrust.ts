// Whether a file the daemon would run (a successor's script: it gets every PTY master and the notify
// secret) can be changed by anyone but this user and root: the file and each folder above it must
// belong to one of them and be writable by no one else. A folder every user can write to is fine
// when it is sticky (like /tmp): no one else can rename or replace what is ours in it.
import * as fs from 'node:fs';
import * as path from 'node:path';

export class UntrustedFileError extends Error {}

function mayOwn(uid: number): boolean {
  return uid === 0 || uid === (process.getuid?.() ?? 0);
}

/**
 * The real path of `file` once it and every folder above it are this user's or root's and writable by
 * no one else; throws UntrustedFileError naming what is wrong (and its fix) otherwise.
 */
export function trustedFile(file: string): string {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch (err) {
    throw new UntrustedFileError(`no such file: ${file} (${(err as NodeJS.ErrnoException).code})`);
  }
  const st = fs.statSync(real);
  if (!st.isFile()) throw new UntrustedFileError(`${real} is not a regular file`);
  if (!mayOwn(st.uid))
    throw new UntrustedFileError(`${real} belongs to another user (uid ${st.uid}); refusing to run it`);
  if (st.mode & 0o022) throw new UntrustedFileError(`${real} is writable by others (fix: chmod go-w ${real})`);
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    const info = fs.statSync(dir);
    if (!mayOwn(info.uid))
      throw new UntrustedFileError(
        `${dir}, above ${real}, belongs to another user (uid ${info.uid}); refusing to run it`,
      );
    if (info.mode & 0o022 && !(info.mode & 0o1000))
      throw new UntrustedFileError(`${dir}, above ${real}, is writable by others (fix: chmod go-w ${dir})`);
    if (dir === path.dirname(dir)) return real;
  }
}
