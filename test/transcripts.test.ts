// An agent's conversation from its own transcript file, in a temp HOME: Claude Code's file found
// from the recorded profile + id and the directory, rendered as user/assistant/tool lines, a bad id
// and a symlink out of the folder refused, a huge file read at its tail; Codex's and Gemini's
// stand-ins; and a real daemon's `search` (and `holdfast grep`) over a full-screen session whose
// words exist only in the transcript.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { HoldfastClient } from '../src/client/client';
import { claudeProjectSlug, findTranscript, readTranscript, TranscriptTuning } from '../src/agents/transcripts';
import { cliOk } from './helpers/cli';
import { startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { zstdFrame } from './helpers/zstdFrame';

const COMPRESSED_ROLLOUT =
  'KLUv/WCqd2UQAHZTOSFAqaYD2C9mrV9aahG8vz4NRZZ6KepuspuUwNY3FMVhDgQ4ACgAKQCaeIYosgSEZkmLijwgxtjBlKNZSzma' +
  'CmONRgKhNI8dzLGcAyiiFpQxph4KZAeDjLHHaaClnAdkle7u3d3d3d3MzMzMzLu7u7u7qqqqqqqZmZmZmYiIiIiId3d3d/fevAHM' +
  'u7u7u7uqqqqqqpmZmZmZiIiIiIh3d3d3l1JKKaWU0v3/////u7u7B4YosgAVkTSWhlpLTR5HgiBYCCgABhIMRmJhoChATNRS+P//' +
  '//93d3d3d+/u7u7uZmZmZg6Azqgh6ApqVJY9A4CDFBSUVhsSSBBIEPgVBP4fQZBA+AMCeyemSn6b7BZLi4XFgsViyWJhsWyxsFhY' +
  'LFgslhYWlpYWC4uFhYXFYmmxyGJpsbBYsFhYLJYWFpaWFgsLC4uFxWLJYmGxbLFgsbBYWCwsLRYWS0sWFguLhYXF0ozlwMZIb6lc' +
  '17VY17VU17VQ122ZrssiXdcSXdcCXdfyXFe0ONcqlZWKSsVKxUqlsrKiUlmpqKioVFRWKlUqKpWVCpWKSkWlUmWlolJZUVGpqFRU' +
  'VCpXKiqVKhWVikqFSqWysqKislJRqaioqFQqKxVVKlfpryv8UWU/quhHKvlRBT+q3EcV+wis1EcW+igpKSkUlBQKyqGJs7HM1Mb8' +
  '3ymFAf7D9FcB';

const SESSION_ID = '3f8e2a4c-1b7d-4e6f-9a0b-5c2d8e1f7a93';

/** Lines as Claude Code 2.1 writes them (one JSON object per line; bookkeeping records included). */
function claudeRecords(cwd: string, marker: string): object[] {
  const base = { parentUuid: null, isSidechain: false, userType: 'external', cwd, sessionId: SESSION_ID };
  return [
    { type: 'file-history-snapshot', messageId: 'm0', snapshot: { trackedFileBackups: {} } },
    { ...base, type: 'user', uuid: 'u1', message: { role: 'user', content: `find ${marker} in the logs` } },
    {
      ...base,
      type: 'assistant',
      uuid: 'a1',
      message: {
        role: 'assistant',
        model: 'claude-sonnet',
        content: [
          { type: 'thinking', thinking: 'hidden reasoning', signature: 'x' },
          { type: 'text', text: 'Searching now.\nTwo places to look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'grep -r needle .' } },
        ],
      },
    },
    {
      ...base,
      type: 'user',
      uuid: 'u2',
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a.log:3\nb.log:9' }] },
        ],
      },
      toolUseResult: { stdout: 'a.log:3\nb.log:9', stderr: '' },
    },
    { ...base, type: 'user', uuid: 'u3', isMeta: true, message: { role: 'user', content: 'Caveat: local command' } },
    {
      ...base,
      type: 'assistant',
      uuid: 'a2',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Found it \x1b[2J in a.log' }] },
    },
    { type: 'summary', summary: 'Log search', leafUuid: 'a2' },
  ];
}

const jsonl = (records: object[]) => records.map((r) => JSON.stringify(r) + '\n').join('');

function writeClaude(home: string, cwd: string, marker: string, id = SESSION_ID): string {
  const dir = path.join(home, '.claude', 'projects', claudeProjectSlug(cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${id}.jsonl`);
  fs.writeFileSync(file, jsonl(claudeRecords(cwd, marker)));
  return file;
}

describe('transcripts', () => {
  let home: string;
  let cwd: string;
  before(() => {
    home = fs.realpathSync(tempDir('hf-home-'));
    cwd = path.join(home, 'work', 'my.project');
    fs.mkdirSync(cwd, { recursive: true });
  });
  after(() => fs.rmSync(home, { recursive: true, force: true }));

  test("Claude Code's file is found from the profile, the id and the directory, and read as lines", async () => {
    const file = writeClaude(home, cwd, 'MARK-1');
    assert.equal(path.basename(path.dirname(file)), claudeProjectSlug(cwd));
    assert.match(claudeProjectSlug(cwd), /^-.*-work-my-project$/);
    const agent = { profile: 'claude', sessionId: SESSION_ID };
    assert.equal(await findTranscript(agent, cwd, home), file);
    const transcript = await readTranscript(agent, cwd, home);
    assert.deepEqual(transcript, {
      agentName: 'Claude Code',
      file,
      partial: false,
      lines: [
        'user: find MARK-1 in the logs',
        'assistant: Searching now.',
        '  Two places to look.',
        'tool: Bash {"command":"grep -r needle ."}',
        'tool result: a.log:3 b.log:9',
        'assistant: Found it \\u{1b}[2J in a.log',
      ],
    });
    // Appended to (the conversation goes on): read again.
    fs.appendFileSync(file, jsonl([{ type: 'user', message: { role: 'user', content: 'and then?' } }]));
    assert.equal((await readTranscript(agent, cwd, home))?.lines.at(-1), 'user: and then?');
  });

  test("a file in another project folder (started elsewhere, or a long path's hashed name) is found", async () => {
    const id = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    const other = path.join(home, '.claude', 'projects', '-some-other-place-1x2y3z');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, `${id}.jsonl`), jsonl(claudeRecords(cwd, 'MARK-3')));
    const transcript = await readTranscript({ profile: 'claude', sessionId: id }, cwd, home);
    assert.equal(transcript?.file, path.join(other, `${id}.jsonl`));
    assert.equal(transcript?.lines[0], 'user: find MARK-3 in the logs');
  });

  test('a bad id, another profile, or no agent finds nothing', async () => {
    writeClaude(home, cwd, 'MARK-2');
    for (const sessionId of ['../' + SESSION_ID, '-x', '', 'a/b', 42, undefined])
      assert.equal(await findTranscript({ profile: 'claude', sessionId }, cwd, home), undefined, String(sessionId));
    assert.equal(await findTranscript({ profile: 'aider', sessionId: SESSION_ID }, cwd, home), undefined);
    assert.equal(await readTranscript(undefined, cwd, home), undefined);
  });

  test('a symlink that leads out of the agent folder is refused', async () => {
    const outside = path.join(home, 'outside');
    fs.mkdirSync(outside, { recursive: true });
    const secret = path.join(outside, 'secret.jsonl');
    fs.writeFileSync(secret, jsonl(claudeRecords(cwd, 'SECRET')));
    const fileLink = '11111111-2222-3333-4444-555555555555';
    const linkDir = path.join(home, '.claude', 'projects', 'linked');
    fs.mkdirSync(linkDir, { recursive: true });
    fs.symlinkSync(secret, path.join(linkDir, `${fileLink}.jsonl`));
    assert.equal(await findTranscript({ profile: 'claude', sessionId: fileLink }, cwd, home), undefined);
    // A whole project folder that is a link out.
    const dirLink = '66666666-7777-8888-9999-000000000000';
    fs.copyFileSync(secret, path.join(outside, `${dirLink}.jsonl`));
    fs.symlinkSync(outside, path.join(home, '.claude', 'projects', claudeProjectSlug(cwd) + '-x'));
    assert.equal(await findTranscript({ profile: 'claude', sessionId: dirLink }, cwd, home), undefined);
  });

  test('a huge file is read only at its tail', async () => {
    const id = 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';
    const dir = path.join(home, '.claude', 'projects', 'huge');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${id}.jsonl`);
    const say = (text: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: text } }) + '\n';
    const filler = say('x'.repeat(64 * 1024));
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, say('EARLY-marker'));
    for (let written = 0; written < TranscriptTuning.TailBytes + 1024 * 1024; written += filler.length)
      fs.writeSync(fd, filler);
    fs.writeSync(fd, say('LATE-marker'));
    fs.closeSync(fd);
    const transcript = await readTranscript({ profile: 'claude', sessionId: id }, cwd, home);
    assert.ok(transcript);
    assert.equal(transcript.partial, true);
    assert.equal(transcript.lines.at(-1), 'user: LATE-marker');
    assert.ok(!transcript.lines.some((l) => l.includes('EARLY-marker')));
    // Cut lines at 2000 characters: the filler shows as its start.
    assert.ok(transcript.lines.every((l) => l.length <= 2001));
  });

  test("Codex's rollout and Gemini's chat file are found and read", async () => {
    const thread = '0199a213-81c0-7800-8aa1-bbab2a035a53';
    const day = path.join(home, '.codex', 'sessions', '2026', '12', '03');
    fs.mkdirSync(day, { recursive: true });
    const rollout = path.join(day, `rollout-2026-12-03T07-10-11-${thread}.jsonl`);
    fs.writeFileSync(
      rollout,
      jsonl([
        { timestamp: 't', type: 'session_meta', payload: { id: thread, cwd, cli_version: '0.169.0' } },
        {
          timestamp: 't',
          type: 'response_item',
          payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>' }] },
        },
        { timestamp: 't', type: 'event_msg', payload: { type: 'user_message', message: 'fix CODEX-MARK' } },
        {
          timestamp: 't',
          type: 'response_item',
          payload: { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1' },
        },
        {
          timestamp: 't',
          type: 'response_item',
          payload: { type: 'function_call_output', call_id: 'c1', output: 'x' },
        },
        { timestamp: 't', type: 'event_msg', payload: { type: 'agent_message', message: 'Done.' } },
      ]),
    );
    const codex = await readTranscript({ profile: 'codex', sessionId: thread }, cwd, home);
    assert.equal(codex?.file, rollout);
    assert.deepEqual(codex?.lines, ['user: fix CODEX-MARK', 'tool: shell {"command":["ls"]}', 'assistant: Done.']);

    const gemini = '5d0c6a4e-8f21-4b3a-9c7d-2e1f0a9b8c76';
    const chats = path.join(home, '.gemini', 'tmp', 'my-project', 'chats');
    fs.mkdirSync(chats, { recursive: true });
    // Another session whose id starts the same: its file's first record names it, so it is passed over.
    fs.writeFileSync(path.join(chats, 'session-2026-12-03T07-09-5d0c6a4e.jsonl'), jsonl([{ sessionId: '5d0c6a4e-x' }]));
    const chat = path.join(chats, 'session-2026-12-03T07-08-5d0c6a4e.jsonl');
    fs.writeFileSync(
      chat,
      jsonl([
        { sessionId: gemini, projectHash: 'h', startTime: 't', lastUpdated: 't', kind: 'main' },
        { id: 'm1', timestamp: 't', type: 'user', content: [{ text: 'explain GEMINI-MARK' }] },
        { id: 'm2', timestamp: 't', type: 'gemini', content: 'draft' },
        { $set: { lastUpdated: 't2' } },
        {
          id: 'm2',
          timestamp: 't',
          type: 'gemini',
          content: 'It is a marker.',
          toolCalls: [{ name: 'read_file', args: { path: 'a' } }],
        },
      ]),
    );
    const read = await readTranscript({ profile: 'gemini', sessionId: gemini }, cwd, home);
    assert.equal(read?.agentName, 'Gemini CLI');
    assert.equal(read?.file, chat);
    assert.deepEqual(read?.lines, [
      'user: explain GEMINI-MARK',
      'assistant: It is a marker.',
      'tool: read_file {"path":"a"}',
    ]);
  });

  test("Codex's .jsonl.zst rollout: read at its tail, with zlib's zstd or fzstd's", async () => {
    const thread = '0199a213-81c0-7800-8aa1-cccccccccccc';
    const day = path.join(home, '.codex', 'sessions', '2026', '12', '02');
    fs.mkdirSync(day, { recursive: true });
    const plain = path.join(day, `rollout-2026-12-02T07-10-11-${thread}.jsonl`);
    const event = (type: string, message: string) =>
      JSON.stringify({ timestamp: 't', type: 'event_msg', payload: { type, message } }) + '\n';
    const conversation = event('user_message', 'fix ZSTD-MARK') + event('agent_message', 'Done.');
    fs.writeFileSync(plain, conversation);
    const agent = { profile: 'codex', sessionId: thread };
    assert.equal((await readTranscript(agent, cwd, home))?.file, plain);
    // Codex compresses the idle rollout: the .jsonl is replaced by the .jsonl.zst, found instead.
    const filler = event('agent_message', 'x'.repeat(64 * 1024));
    const early = event('user_message', 'EARLY-zstd');
    const long = early + filler.repeat(Math.ceil(TranscriptTuning.TailBytes / filler.length) + 4) + conversation;
    const compressed = `${plain}.zst`;
    fs.writeFileSync(compressed, zstdFrame(Buffer.from(long)));
    fs.rmSync(plain);
    const read = await readTranscript(agent, cwd, home);
    assert.equal(read?.file, compressed);
    // zlib's decoder on Node 22.15+, fzstd's on Node 20: the same lines either way.
    assert.equal(read.partial, true);
    assert.deepEqual(read.lines.slice(-2), ['user: fix ZSTD-MARK', 'assistant: Done.']);
    assert.ok(!read.lines.includes('user: EARLY-zstd'));
    // Unpacked again to go on with the thread: the .jsonl is read, though the .zst is still there.
    fs.writeFileSync(plain, conversation + event('user_message', 'and on'));
    assert.deepEqual((await readTranscript(agent, cwd, home))?.lines.at(-1), 'user: and on');
  });
  test('a rollout compressed by real zstd (sequences, not raw blocks) is read on this Node too', async () => {
    const thread = '0199a213-81c0-7800-8aa1-dddddddddddd';
    const day = path.join(home, '.codex', 'sessions', '2026', '12', '03');
    fs.mkdirSync(day, { recursive: true });
    // 200 agent messages, then the marker: 30,890 bytes made 534 by zstd (zlib.zstdCompressSync, Node 24).
    const file = path.join(day, `rollout-2026-12-03T07-10-11-${thread}.jsonl.zst`);
    fs.writeFileSync(file, Buffer.from(COMPRESSED_ROLLOUT, 'base64'));
    const read = await readTranscript({ profile: 'codex', sessionId: thread }, cwd, home);
    assert.equal(read?.file, file);
    assert.equal(read.lines.length, 202);
    assert.deepEqual(read.lines.slice(-2), ['user: COMPRESSED-MARK', 'assistant: Compressed done.']);
  });
});

describe("search over a full-screen agent's transcript", () => {
  let home: string;
  let daemon: TestDaemon;
  let client: HoldfastClient;
  let sessionId: string;
  before(async () => {
    home = fs.realpathSync(tempDir('hf-home-'));
    const cwd = path.join(home, 'project');
    fs.mkdirSync(cwd);
    writeClaude(home, cwd, 'ONLY-IN-TRANSCRIPT-42');
    daemon = await startTestDaemon([], '--persistent', { HOME: home }); // it reads this home's agent folders
    client = await daemon.connect();
    // The stand-in agent: the daemon puts Claude Code's hook options after its name, which it ignores.
    const agent = path.join(home, 'claude');
    fs.writeFileSync(agent, `#!/bin/sh\nprintf '\\033[?1049h'\necho drawing-the-screen\nexec sleep 1000\n`, {
      mode: 0o755,
    });
    const { session } = await client.request('create', {
      name: 'agent',
      argv: [agent],
      cwd,
      cols: 80,
      rows: 24,
      metadata: { agent: { profile: 'claude', sessionId: SESSION_ID } },
    });
    sessionId = session.id;
    const condition = { kind: 'text', pattern: 'drawing-the-screen' } as const;
    await client.request('wait', { session: sessionId, condition, timeoutMs: 10_000 });
  });
  after(async () => {
    await daemon.stop();
    fs.rmSync(daemon.dir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });

  test('search finds a word that exists only in the transcript, marked as from it', async () => {
    const { lines } = await client.request('read', { session: sessionId, scrollback: 1000 });
    assert.ok(lines.includes('drawing-the-screen'));
    assert.ok(!lines.some((l) => l.includes('ONLY-IN-TRANSCRIPT-42')));
    const result = await client.request('search', { pattern: 'ONLY-IN-TRANSCRIPT-\\d+', context: 1 });
    assert.equal(result.truncated, false);
    assert.equal(result.matches.length, 1);
    const [match] = result.matches;
    assert.equal(match.session, sessionId);
    assert.equal(match.source, 'transcript');
    assert.equal(match.line, 0);
    assert.equal(match.text, 'user: find ONLY-IN-TRANSCRIPT-42 in the logs');
    assert.deepEqual(match.after, ['assistant: Searching now.']);
    // The screen's own lines are matched as before, without the mark.
    const screen = await client.request('search', { pattern: 'drawing-the-screen' });
    assert.equal(screen.matches.length, 1);
    assert.equal(screen.matches[0].source, undefined);
  });

  test('holdfast grep prints the mark', async () => {
    const stdout = await cliOk(daemon.env, ['grep', 'ONLY-IN']);
    assert.equal(stdout, 'agent[transcript]:1: user: find ONLY-IN-TRANSCRIPT-42 in the logs\n');
  });
});
