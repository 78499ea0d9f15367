// E2E: full-screen agents' conversations found by search. *Holdfast: New Agent…*
// starts a Claude Code stand-in (claudeStandIn.ts) and a Codex stand-in (codexStandIn.ts) as it starts
// the real agents; each draws on the alternate screen, is asked a question typed in its tab, and writes
// the conversation where the agent keeps it, under this test's own HOME. A word of it that was never on
// the screen is found by `holdfast grep` and *Holdfast: Search Sessions…* (the item marked as from the
// transcript), whose item opens the session's history with the conversation. Codex's rollout is found
// again once compressed to .jsonl.zst (code-server's Node 24 has zstd).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { SearchMatch } from '../../src/protocol/messages';
import { shellQuote } from '../../src/text/shellQuote';
import { zstdFrame } from '../helpers/zstdFrame';
import { type HoldfastE2E, makeTempDir, type SessionView, waitFor, type Workbench, scenarioHooks } from './harness';

/** In the transcripts only: the stand-ins never draw them. */
const CLAUDE_WORD = `quokka${randomBytes(4).toString('hex')}`;
const CODEX_WORD = `wombat${randomBytes(4).toString('hex')}`;

const binDir = makeTempDir('transcript-bin');

/** The stand-ins' modules (compiled beside this file), run by executables named like the agents. */
const CLAUDE_MODULE = path.join(__dirname, 'claudeStandIn.js');
const CODEX_MODULE = path.join(__dirname, 'codexStandIn.js');
const CLAUDE = path.join(binDir, 'claude');
const CODEX = path.join(binDir, 'codex');

/** Writes `file`: an executable that runs the stand-in `module` (with node, which it execs) and its word. */
function writeStandIn(file: string, module: string, word: string): void {
  const node = shellQuote(process.execPath);
  fs.writeFileSync(file, `#!/bin/sh\nHOLDFAST_STAND_IN_WORD=${word} exec ${node} ${shellQuote(module)} "$@"\n`, {
    mode: 0o755,
  });
}
writeStandIn(CLAUDE, CLAUDE_MODULE, CLAUDE_WORD);
writeStandIn(CODEX, CODEX_MODULE, CODEX_WORD);

let e2e: HoldfastE2E;

scenarioHooks(
  {
    name: 'transcript',
    cleanup: () => fs.rmSync(binDir, { recursive: true, force: true }),
    // The transcripts go to ~/.claude and ~/.codex: this test's own HOME, for the extension, the daemon and the CLI.
    isolatedHome: true,
    // The stand-ins replace the built-in profiles' binaries (as in agents.test.ts).
    settings: {
      'holdfast.agents': [
        {
          id: 'claude',
          name: 'Claude Code',
          argv: [CLAUDE, '--session-id', '{id}'],
          resumeArgv: [CLAUDE, '--resume', '{id}'],
        },
        { id: 'codex', name: 'Codex CLI', argv: [CODEX] },
      ],
    },
  },
  (started) => (e2e = started),
);

function agentOf(session: SessionView): { profile?: string; sessionId?: string } {
  return session.metadata?.agent ?? {};
}

/** The lines the active editor shows, top to bottom, each with its number from the gutter. */
function editorLines(wb: Workbench): Promise<{ number: number; text: string }[]> {
  return wb.page
    .locator('.part.editor .monaco-editor')
    .first()
    .evaluate((editor) => {
      const top = (el: Element) => parseFloat((el as HTMLElement).style.top || '0');
      const numbers = new Map<number, number>();
      for (const row of Array.from(editor.querySelectorAll('.margin-view-overlays > div')))
        numbers.set(top(row), Number(row.querySelector('.line-numbers')?.textContent ?? NaN));
      return Array.from(editor.querySelectorAll('.view-lines .view-line'))
        .map((line) => ({ top: top(line), text: (line.textContent ?? '').replace(/\u00a0/g, ' ') }))
        .sort((a, b) => a.top - b.top)
        .map((line) => ({ number: numbers.get(line.top) ?? NaN, text: line.text }));
    });
}

/** Starts a stand-in through New Agent and asks it `question`; resolves once it has drawn `answered`. */
async function askAgent(
  profile: { id: string; name: string; title: string },
  question: string,
  answered: string,
): Promise<SessionView> {
  const wb = e2e.wb;
  await wb.runCommand('Holdfast: New Agent…');
  await wb.pickQuickItem(new RegExp(profile.name));
  const agent = await waitFor(() => e2e.iso.sessions().find((s) => agentOf(s).profile === profile.id), {
    timeout: 30_000,
    message: `the ${profile.name} session`,
  });
  await e2e.iso.waitForScreen(agent.id, profile.title);
  await wb.waitForTerminalText(profile.title);
  await wb.typeInTerminal(`${question}\n`);
  await e2e.iso.waitForScreen(agent.id, answered);
  const { lines } = e2e.iso.cliJson<{ lines: string[] }>(['read', agent.id, '--scrollback', '100000']);
  assert.ok(lines.some((l) => l.includes(`> ${question}`)));
  return agent;
}

/** `holdfast grep WORD`'s one match, which must come from the agent's transcript. */
function grepTranscript(word: string, agent: SessionView): SearchMatch {
  const grep = e2e.iso.cliJson<{ matches: SearchMatch[] }>(['grep', word, '--context', '1']);
  assert.equal(grep.matches.length, 1, `one match of ${word}`);
  const [match] = grep.matches;
  assert.equal(match.session, agent.id);
  assert.equal(match.source, 'transcript');
  // Not on the screen or in the history: only the transcript has it.
  const { lines } = e2e.iso.cliJson<{ lines: string[] }>(['read', agent.id, '--scrollback', '100000']);
  assert.ok(!lines.some((l) => l.includes(word)), `${word} is not in the screen or the history`);
  return match;
}

/**
 * Search Sessions for `word`: the one item is `match`, marked as from the transcript; choosing it opens
 * the session's history, where `conversation` follows `header` and the cursor is on the match's line.
 */
async function searchAndOpen(
  word: string,
  match: SearchMatch,
  agent: SessionView,
  header: string,
  conversation: string[],
): Promise<void> {
  const wb = e2e.wb;
  await wb.runCommand('Holdfast: Search Sessions…');
  await wb.page.fill('.quick-input-widget .quick-input-box input', word);
  const rows = await waitFor(
    async () => {
      const shown = await wb.quickPickRows();
      return shown.some((row) => row.label.includes(word)) ? shown : undefined;
    },
    { timeout: 20_000, message: 'the match in the search quick pick' },
  );
  assert.deepEqual(rows, [{ label: match.text, description: `${agent.name} · transcript line ${match.line + 1}` }]);
  await wb.screenshot(`transcript-search-${agentOf(agent).profile}`);

  await wb.pickQuickItem(new RegExp(word));
  await waitFor(async () => (await wb.editorTabs()).some((tab) => tab.active && tab.name === agent.name), {
    timeout: 20_000,
    message: "the session's history document",
  });
  const { editor, at } = await waitFor(
    async () => {
      const lines = await editorLines(wb);
      const index = lines.findIndex((line) => line.text === header);
      return index >= 0 && lines.length > index + conversation.length ? { editor: lines, at: index } : undefined;
    },
    { timeout: 15_000, message: 'the conversation in the history document' },
  );
  assert.deepEqual(
    editor.slice(at + 1, at + 1 + conversation.length).map((line) => line.text),
    conversation,
  );
  // The cursor is on the match's line: the transcript's line `match.line` counts from under the header.
  const matchNumber = editor[at].number + 1 + match.line;
  assert.equal(editor.find((line) => line.number === matchNumber)?.text, match.text);
  await waitFor(
    async () => {
      const position = await wb.page
        .locator('.part.statusbar #status\\.editor\\.selection')
        .textContent({ timeout: 1_000 });
      // Thrown, so that a timeout reports what the status bar said last.
      if (!new RegExp(`^Ln ${matchNumber},`).test(position ?? '')) throw new Error(`the status bar says "${position}"`);
      return true;
    },
    { timeout: 15_000, message: `the cursor on line ${matchNumber}` },
  );
  await wb.screenshot(`transcript-history-${agentOf(agent).profile}`);
}

test(
  "Claude Code's conversation: found by holdfast grep and Search Sessions, shown in the session's history",
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const folder = e2e.workspace('claude');
      await e2e.open(folder);
      const question = 'which test is flaky?';
      const claude = { id: 'claude', name: 'Claude Code', title: '✻ Claude Code stand-in' };
      const agent = await askAgent(claude, question, 'The flaky one is in retry.test.ts');
      const id = agentOf(agent).sessionId!;
      // Started as Claude Code is: the hook settings after the program's name, then the generated id.
      const cmdline = fs.readFileSync(`/proc/${agent.pid}/cmdline`, 'utf8').split('\0');
      assert.deepEqual(cmdline.slice(1, 3), [CLAUDE_MODULE, '--settings']);
      assert.deepEqual(cmdline.slice(-3, -1), ['--session-id', id]);
      // Written where Claude Code writes it.
      const slug = fs.realpathSync(folder).replace(/[^a-zA-Z0-9]/g, '-');
      const file = path.join(e2e.iso.home!, '.claude', 'projects', slug, `${id}.jsonl`);
      assert.ok(fs.readFileSync(file, 'utf8').includes(CLAUDE_WORD), `the stand-in wrote ${file}`);

      const match = grepTranscript(CLAUDE_WORD, agent);
      assert.equal(
        match.text,
        `tool result: 812: test ${CLAUDE_WORD} (retry.test.ts) timed out after 30s ` +
          '977: test upload (io.test.ts) timed out after 30s',
      );
      assert.deepEqual(match.before, ['tool: Bash {"command":"grep -n \\"timed out\\" ci.log"}']);
      assert.deepEqual(match.after, ['assistant: The flaky one is in retry.test.ts: it times out under load.']);
      const plain = e2e.iso.cli(['grep', CLAUDE_WORD]);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(plain.stdout, `${agent.name}[transcript]:${match.line + 1}: ${match.text}\n`);

      await searchAndOpen(CLAUDE_WORD, match, agent, `── conversation (from Claude Code's transcript ${file}) ──`, [
        `user: ${question}`,
        'assistant: Let me look at the CI log.',
        match.before[0],
        match.text,
        match.after[0],
      ]);
    });
  },
);

test(
  "Codex's rollout, found once its notify hook gave the thread id, and again once compressed to .jsonl.zst",
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      // The first test's workspace, when it is still open: saves a page load (the rollout's place is Codex's HOME).
      const folder = e2e.workspace('claude');
      if (e2e.wb.folder !== folder) await e2e.open(folder);
      const question = 'why did CI fail?';
      const codex = { id: 'codex', name: 'Codex CLI', title: '>_ Codex stand-in' };
      const agent = await askAgent(codex, question, 'The upload test times out');
      // Codex picks its thread id; its notify hook (set by Holdfast per run) reports it after the turn.
      const thread = await waitFor(() => agentOf(e2e.iso.session(agent.id)).sessionId, {
        timeout: 15_000,
        message: 'the thread id reported by the notify hook',
      });
      const sessions = path.join(e2e.iso.home!, '.codex', 'sessions');
      const name = fs
        .readdirSync(sessions, { recursive: true, encoding: 'utf8' })
        .find((f) => f.endsWith(`-${thread}.jsonl`));
      assert.ok(name, `the rollout of ${thread} under ${sessions}`);
      const rollout = path.join(sessions, name);

      const match = grepTranscript(CODEX_WORD, agent);
      assert.equal(match.text, `tool: shell {"command":["bash","-lc","grep -n ${CODEX_WORD} ci.log"]}`);
      assert.deepEqual(match.before, [`user: ${question}`]);
      assert.deepEqual(match.after, ['assistant: The upload test times out: ci.log line 812.']);

      // Codex compresses an idle rollout: the .jsonl is replaced by the .jsonl.zst, which is read instead.
      const compressed = `${rollout}.zst`;
      fs.writeFileSync(compressed, zstdFrame(fs.readFileSync(rollout)));
      fs.rmSync(rollout);
      assert.deepEqual(grepTranscript(CODEX_WORD, agent), match);
      await searchAndOpen(CODEX_WORD, match, agent, `── conversation (from Codex CLI's transcript ${compressed}) ──`, [
        ...match.before,
        match.text,
        ...match.after,
      ]);
    });
  },
);
