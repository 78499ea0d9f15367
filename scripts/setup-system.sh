#!/usr/bin/env bash
# Installs the Debian packages the build, the tests and the e2e need: only the missing ones, with `apt-get update`
# only then. Without root or passwordless sudo, prints the one command that would do it and exits 1.
#
#   bash scripts/setup-system.sh [GROUP...]    GROUP: build, test, e2e, bench (default: build test e2e)
#
# npm test asks for build, test and e2e; npm run test:fast for build and test; scripts/setup-e2e.sh for build and
# e2e; npm run bench for bench. Works unattended (CI=true, no stdin).
set -euo pipefail

# The one list: group, package, why.
PACKAGES='
build python3               node-gyp (npm ci builds node-pty from source; setup-e2e.sh builds code-server)
build make                  node-gyp, as above
build g++                   node-gyp, as above
test  git                   the worktree tests make repositories and worktrees
test  procps                ps: the portable process path (HOLDFAST_PORTABLE_PROCESS=1) lists process groups
test  unzip                 test/packages.test.ts opens each .vsix
test  g++-aarch64-linux-gnu test/packages.test.ts cross-compiles node-pty for linux-arm64
test  openssh-server        test/hosts-*.test.ts start a real sshd on loopback (hosts over SSH)
test  openssh-client        ssh, which a host link runs, and ssh-keygen for the test key pairs
e2e   chromium-headless-shell the browser the e2e drives (playwright-core): the renderer, no desktop browser
e2e   libkrb5-dev           headers for code-server'"'"'s native kerberos module (scripts/setup-e2e.sh)
e2e   ripgrep               rg for code-server 4.96.4'"'"'s install, whose postinstall would download it from GitHub
e2e   zsh                   shell integration (VS Code'"'"'s scripts) in zsh: test/e2e/shell-integration, shell-scripts
e2e   fish                  the same in fish
bench tmux                  npm run bench compares Holdfast with tmux
bench openssh-server        row 10 of npm run bench reaches its hosts over a real sshd on loopback
bench openssh-client        and ssh, as a host link runs it
'

say() { printf '[setup-system] %s\n' "$*" >&2; }

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build test e2e)
wanted=()
for group in "${groups[@]}"; do
  case "$group" in build | test | e2e | bench) ;; *)
    say "unknown group '$group' (build, test, e2e, bench)"
    exit 2
    ;;
  esac
  while read -r g pkg _; do [ "$g" = "$group" ] && wanted+=("$pkg"); done <<<"$PACKAGES"
done

if ! command -v dpkg-query >/dev/null 2>&1; then
  say "not a Debian system (no dpkg-query): install the equivalents of ${wanted[*]} yourself"
  exit 1
fi
# One dpkg-query for all (it names only the packages it knows, and exits 1 when one is unknown).
installed=" $( (dpkg-query -W -f='${Package}:${Status}\n' "${wanted[@]}" 2>/dev/null || true) |
  sed -n 's/:install ok installed$//p' | tr '\n' ' ') "
missing=()
for pkg in "${wanted[@]}"; do [[ "$installed" == *" $pkg "* ]] || missing+=("$pkg"); done
[ ${#missing[@]} -gt 0 ] || exit 0

install="apt-get install -y -q --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  run="apt-get update && $install"
  if command -v sudo >/dev/null 2>&1; then run="sudo apt-get update && sudo $install"; else run="as root: $run"; fi
  say "missing Debian packages (${missing[*]}): run $run"
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
say "installing ${missing[*]}"
# Another apt (an engineer's, unattended-upgrades) may hold the lock for a while: wait for it.
"${sudo[@]}" apt-get update -q </dev/null >/dev/null
"${sudo[@]}" apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}" \
  </dev/null >/dev/null
