// The shell scripts a host runs for Holdfast over ssh: finding its holdfast (the default `command`), and the
// install's probe and receiver. Each is one line of POSIX sh with no single quote, backslash or newline, so that
// `sh -c …` passes through any login shell of the remote user (sh, bash, zsh, fish, csh) unchanged.
import { shellQuote } from '../text/shellQuote';

/** Where installs live, under the remote user's home: one folder per build, and the launcher of the newest. */
export const INSTALL_ROOT = '$HOME/.holdfast';
export const INSTALL_ROOT_SHOWN = '~/.holdfast';
/** The launcher of the newest install, which the default command runs when `holdfast` is not on the PATH. */
export const INSTALLED_LAUNCHER = 'holdfast';

/** A receiver's exit status when it refuses (the reason is its last line on stderr). */
export const REFUSED_STATUS = 3;

/** The host's holdfast: the one on the PATH of its non-interactive shell, else the newest install's launcher. */
const FIND_HOLDFAST = [
  'if command -v holdfast >/dev/null 2>&1; then exec holdfast "$@"; fi',
  `if [ -x "${INSTALL_ROOT}/${INSTALLED_LAUNCHER}" ]; then exec "${INSTALL_ROOT}/${INSTALLED_LAUNCHER}" "$@"; fi`,
  'echo "holdfast: not found" >&2',
  'exit 127',
].join('; ');

/**
 * What the remote shell runs to learn the host: its system and machine (`uname -sm`), its node and version if
 * it has one on the PATH, and which installs are complete there (by folder name).
 */
const PROBE = [
  'echo "uname $(uname -sm)"',
  'if n=$(command -v node 2>/dev/null); then echo "node $("$n" --version 2>/dev/null) $n"; else echo "node none"; fi',
  `for d in "${INSTALL_ROOT}"/*; do ` +
    'if [ -f "$d/.complete" ] && [ ! -L "$d" ]; then echo "installed ${d##*/}"; fi; done',
  'echo end',
].join('; ');

/**
 * The receiver: a tar stream on stdin becomes install `$1` whose SHA256SUMS has checksum `$2`. The install root is
 * made 0700 or must already be a real folder of this user's with mode 0700 (never a symlink); the files land in a
 * fresh mktemp folder inside it, are checked against SHA256SUMS, and the folder is renamed into place. The
 * launcher of the newest install is replaced by a rename. An install that is there already is left as it is.
 */
const RECEIVE = [
  'set -eu',
  'umask 077',
  `root="${INSTALL_ROOT}"`,
  `refuse() { echo "$1" >&2; exit ${REFUSED_STATUS}; }`,
  'if [ ! -e "$root" ] && [ ! -L "$root" ]; then mkdir -m 700 "$root"; fi',
  'mine=$(find "$root" -maxdepth 0 -type d -user "$(id -u)" -perm 700 2>/dev/null || true)',
  '[ -n "$mine" ] || refuse "$root is not a folder of this user with mode 0700 (a symlink, or another owner or mode)"',
  'dest="$root/$1"',
  `launcher="$root/${INSTALLED_LAUNCHER}"`,
  '[ ! -L "$dest" ] || refuse "$dest is a symlink"',
  'if [ -e "$dest" ] && [ ! -f "$dest/.complete" ]; then refuse "$dest is not a whole install: remove it"; fi',
  'if [ -e "$dest" ]; then cat >/dev/null; echo present; exit 0; fi',
  'if [ -L "$launcher" ] || { [ -e "$launcher" ] && [ ! -f "$launcher" ]; }; then refuse "$launcher is not a file"; fi',
  'tmp=$(mktemp -d "$root/.tmp-XXXXXX")',
  'cleanup() { rm -rf "$tmp"; }',
  'trap cleanup EXIT',
  'tar -xof - -C "$tmp"',
  'chmod -R go-rwx "$tmp"',
  'cd "$tmp"',
  'if command -v sha256sum >/dev/null 2>&1; then sum=sha256sum; else sum="shasum -a 256"; fi',
  'echo "$2  SHA256SUMS" | $sum -c >/dev/null 2>&1 || refuse "the files arrived damaged (SHA256SUMS does not match)"',
  '$sum -c SHA256SUMS >/dev/null 2>&1 || refuse "the files arrived damaged (a checksum of SHA256SUMS does not match)"',
  'date > .complete',
  'cd "$root"',
  '[ ! -e "$dest" ] && [ ! -L "$dest" ] || refuse "$dest appeared during the install"',
  'mv "$tmp" "$dest"',
  'next=$(mktemp "$root/.tmp-XXXXXX")',
  'cat "$dest/.launcher" > "$next"',
  'chmod 700 "$next"',
  'mv -f "$next" "$launcher"',
  'trap - EXIT',
  'echo installed',
].join('; ');

/** Runs `$INSTALL_ROOT/NAME/holdfast ARGS` on the host (a command of that install, e.g. `upgrade`). */
const RUN_INSTALLED = `exec "${INSTALL_ROOT}/$1/holdfast" "$@"`;

/** `sh -c SCRIPT NAME0 ARGS…` as a command line for the remote user's login shell. */
function shScript(script: string, args: readonly string[]): string {
  if (/['\\\n]/.test(script)) throw new Error('a remote script must have no quote, backslash or newline');
  return ['sh', '-c', shellQuote(script), ...args.map(shellQuote)].join(' ');
}

/** The default remote command: `holdfast ARGS` found on the PATH, else in ~/.holdfast. */
export function findHoldfastCommand(args: readonly string[]): string {
  return shScript(FIND_HOLDFAST, ['holdfast', ...args]);
}

export function probeCommand(): string {
  return shScript(PROBE, ['holdfast-probe']);
}

export function receiveCommand(name: string, sumsDigest: string): string {
  return shScript(RECEIVE, ['holdfast-install', name, sumsDigest]);
}

/** Runs the CLI of install `name` with `args` (`$1` is the install's name; the rest go to it). */
export function runInstalledCommand(name: string, args: readonly string[]): string {
  return shScript(`n=$1; shift; ${RUN_INSTALLED.replace('$1', '$n')}`, ['holdfast-run', name, ...args]);
}
