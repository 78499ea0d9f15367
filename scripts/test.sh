#!/usr/bin/env bash
# The one test command (npm test): installs what is missing, builds, runs unit/integration tests, then the e2e.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules/node-pty ] || npm ci
npm run build
rm -rf out && npx tsc -p .
# typescript-eslint with type information: floating promises, unused code, empty catches.
npm run lint
# The real agent CLIs, whose option parsing test/agents-real checks the built-in profiles against.
bash scripts/setup-agents.sh
node --test --test-concurrency=2 --test-timeout=120000 $(ls out/test/*.test.js | grep -v '/reliability-load\.test\.js$')
# The daemon suite again on the portable process path (ps and signals, as on macOS; no /proc):
# HOLDFAST_PORTABLE_PROCESS=1. The packages test builds .vsix files and runs no daemon of its own.
HOLDFAST_PORTABLE_PROCESS=1 node --test --test-concurrency=2 --test-timeout=120000 \
  $(ls out/test/*.test.js | grep -v -E '/(reliability-load|packages)\.test\.js$')
# The load test compares flood throughput with and without watchers: it runs alone, so that
# another test file's CPU use does not show up as the watchers' cost.
node --test --test-timeout=300000 out/test/reliability-load.test.js
if compgen -G "out/test/e2e/*.test.js" >/dev/null; then
  bash scripts/setup-e2e.sh
  # One file at a time (each runs its own code-server + Chromium); screenshots and logs of
  # failures go to test-artifacts/. HOLDFAST_E2E_TRACE prints each step with its time.
  HOLDFAST_E2E_TRACE="${HOLDFAST_E2E_TRACE:-1}" node --test --test-concurrency=1 --test-timeout=600000 \
    out/test/e2e/*.test.js
fi
