# The per-user cache of the tools the tests install (Node 24, code-server, the agent CLIs), sourced by
# scripts/setup-e2e.sh and scripts/setup-agents.sh from the repository's root. Each version has a directory
# of its own there, installed once under a lock; the clone's .vscode-test/ links to it, so a new clone or
# worktree finds it installed. HOLDFAST_TOOL_CACHE chooses the place; without a home of the user's own the
# cache is .vscode-test/tools/ in the clone.

TOOL_CACHE="${HOLDFAST_TOOL_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/holdfast-tests}"
# Only a directory of this user's: another user's could hand the tests a code-server of its choosing.
if ! mkdir -p "$TOOL_CACHE" 2>/dev/null || [ ! -O "$TOOL_CACHE" ] || [ ! -w "$TOOL_CACHE" ]; then
  TOOL_CACHE="$PWD/.vscode-test/tools"
  mkdir -p "$TOOL_CACHE"
fi

# tool_cache_lock NAME: one install of NAME's tools at a time (two clones' test runs may start together), held
# until the sourcing script exits.
tool_cache_lock() {
  command -v flock >/dev/null || return 0 # util-linux (Debian has it); without it two runs could collide
  exec 9>"$TOOL_CACHE/.lock-$1"
  flock 9
}

# tool_cache_link DIR NAME: .vscode-test/NAME is a link to DIR (an installed tool in the cache).
tool_cache_link() {
  local link="$PWD/.vscode-test/$2"
  mkdir -p "$PWD/.vscode-test"
  # A directory there is an install from before the cache: the link replaces it.
  if [ -d "$link" ] && [ ! -L "$link" ]; then rm -rf "$link"; fi
  ln -sfn "$1" "$link"
}
