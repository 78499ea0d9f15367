// A SessionInfo as the daemon reports it, for tests of code that only reads sessions.
import type { SessionInfo } from '../../src/protocol/messages';

export function sessionInfo(id: string, extra: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id,
    name: id,
    pid: 1,
    state: 'running',
    exit: null,
    argv: ['bash'],
    cwd: '/',
    cols: 80,
    rows: 24,
    title: '',
    clients: { owners: 0, watchers: 0 },
    createdAt: 1000,
    lastOutputAt: 0,
    bellAt: 0,
    attention: { state: 'idle', since: 1000, source: 'output' },
    metadata: {},
    ...extra,
    // Started where it is unless a test says a program moved it (OSC 7).
    startCwd: extra.startCwd ?? extra.cwd ?? '/',
  };
}
