// E2E (issue 15, item 3): a full-screen agent's conversation found by search. *Holdfast: New Agent…*
// starts a Claude Code stand-in (claudeStandIn.ts) as it starts Claude Code; the stand-in draws on
// the alternate screen, is asked a question typed in its tab, and writes the conversation to its
// transcript as Claude Code does, under this test's own HOME. A word of it that was never on the
// screen is found by *Holdfast: Search Sessions…* (the item marked as from the transcript), whose
// item opens the session's history with the conversation, and by `holdfast grep`.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SearchMatch } from '../../src/protocol/messages';
import { shellQuote } from '../../src/protocol/shellQuote';
import { HoldfastE2E, makeTempDir, SessionView, waitFor, Workbench } from './harness';

/** In the transcript only: the stand-in never draws it. */
const WORD = `quokka${randomBytes(4).toString('hex')}`;
const QUESTION = 'which test is flaky?';

const binDir = makeTempDir('transcript-bin');
const CLAUDE = path.join(binDir, 'claude');
const STAND_IN = path.join(__dirname, 'claudeStandIn.js');
fs.writeFileSync(
  CLAUDE,
  `#!/bin/sh\nHOLDFAST_STAND_IN_WORD=${WORD} exec ${shellQuote(process.execPath)} ${shellQuote(STAND_IN)} "$@"\n`,
  { mode: 0o755 },
);

let e2e: HoldfastE2E;

before(async () => {
  e2e = await HoldfastE2E.start({
    name: 'transcript',
    // The transcript goes to ~/.claude: this test's own HOME, for the extension, the daemon and the CLI.
    isolatedHome: true,
    // The stand-in replaces the built-in Claude Code profile's binary (as in agents.test.ts).
    settings: {
      'holdfast.agents': [
        {
          id: 'claude',
          name: 'Claude Code',
          argv: [CLAUDE, '--session-id', '{id}'],
          resumeArgv: [CLAUDE, '--resume', '{id}'],
        },
      ],
    },
  });
});

after(async () => {
  await e2e?.dispose();
  fs.rmSync(binDir, { recursive: true, force: true });
});

function agentSessionId(session: SessionView): string | undefined {
  return (session.metadata?.agent as { profile?: string; sessionId?: string } | undefined)?.sessionId;
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

/** Starts the stand-in through New Agent and asks it the question; resolves once it has answered. */
async function startAgent(): Promise<{ agent: SessionView; id: string }> {
  const wb = e2e.wb;
  await wb.runCommand('Holdfast: New Agent…');
  await wb.pickQuickItem(/Claude Code/);
  const agent = await waitFor(() => e2e.iso.sessions().find((s) => agentSessionId(s) !== undefined), {
    timeout: 30_000,
    message: 'the agent session',
  });
  const id = agentSessionId(agent)!;
  // Started as Claude Code is: the hook settings after the program's name, then the generated id.
  const cmdline = fs.readFileSync(`/proc/${agent.pid}/cmdline`, 'utf8').split('\0');
  assert.deepEqual(cmdline.slice(1, 3), [STAND_IN, '--settings']);
  assert.deepEqual(cmdline.slice(-3, -1), ['--session-id', id]);
  await e2e.iso.waitForScreen(agent.id, '✻ Claude Code stand-in');
  await wb.waitForTerminalText('✻ Claude Code stand-in');
  await wb.typeInTerminal(`${QUESTION}\n`);
  await e2e.iso.waitForScreen(agent.id, 'The flaky one is in retry.test.ts');
  return { agent, id };
}

test(
  "a full-screen agent's conversation: found by Search Sessions and holdfast grep, shown in its history",
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      const folder = e2e.workspace('transcript');
      await e2e.open(folder);
      const { agent, id } = await startAgent();

      // Written where Claude Code writes it; the word is in it, and never was on the screen or in the history.
      const slug = fs.realpathSync(folder).replace(/[^a-zA-Z0-9]/g, '-');
      const file = path.join(e2e.iso.home!, '.claude', 'projects', slug, `${id}.jsonl`);
      assert.ok(fs.readFileSync(file, 'utf8').includes(WORD), `the stand-in wrote ${file}`);
      const { lines } = e2e.iso.cliJson<{ lines: string[] }>(['read', agent.id, '--scrollback', '100000']);
      assert.ok(lines.some((l) => l.includes(`> ${QUESTION}`)));
      assert.ok(!lines.some((l) => l.includes(WORD)), 'the word is not in the screen or the history');

      // holdfast grep: the one match, from the transcript.
      const grep = e2e.iso.cliJson<{ matches: SearchMatch[] }>(['grep', WORD, '--context', '1']);
      assert.equal(grep.matches.length, 1);
      const [match] = grep.matches;
      assert.equal(match.session, agent.id);
      assert.equal(match.source, 'transcript');
      assert.equal(
        match.text,
        `tool result: 812: test ${WORD} (retry.test.ts) timed out after 30s ` +
          '977: test upload (io.test.ts) timed out after 30s',
      );
      assert.deepEqual(match.before, ['tool: Bash {"command":"grep -n \\"timed out\\" ci.log"}']);
      assert.deepEqual(match.after, ['assistant: The flaky one is in retry.test.ts: it times out under load.']);
      const plain = e2e.iso.cli(['grep', WORD]);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(plain.stdout, `${agent.name}[transcript]:${match.line + 1}: ${match.text}\n`);

      // Search Sessions: the one item, marked as from the transcript.
      await wb.runCommand('Holdfast: Search Sessions…');
      await wb.page.fill('.quick-input-widget .quick-input-box input', WORD);
      const rows = await waitFor(
        async () => {
          const shown = await wb.quickPickRows();
          return shown.some((row) => row.label.includes(WORD)) ? shown : undefined;
        },
        { timeout: 20_000, message: 'the match in the search quick pick' },
      );
      assert.deepEqual(rows, [{ label: match.text, description: `${agent.name} · transcript line ${match.line + 1}` }]);
      await wb.screenshot('transcript-search-quick-pick');

      // Choosing it opens the session's history: the screen, then the conversation, the match's line selected.
      await wb.pickQuickItem(new RegExp(WORD));
      await waitFor(async () => (await wb.editorTabs()).some((tab) => tab.active && tab.name === agent.name), {
        timeout: 20_000,
        message: "the session's history document",
      });
      const header = `── conversation (from Claude Code's transcript ${file}) ──`;
      const conversation = [
        `user: ${QUESTION}`,
        'assistant: Let me look at the CI log.',
        match.before[0],
        match.text,
        match.after[0],
      ];
      const shown = await waitFor(
        async () => {
          const editor = await editorLines(wb);
          const at = editor.findIndex((line) => line.text === header);
          return at >= 0 && editor.length > at + conversation.length ? { editor, at } : undefined;
        },
        { timeout: 15_000, message: 'the conversation in the history document' },
      );
      const { editor, at } = shown;
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
          if (!new RegExp(`^Ln ${matchNumber},`).test(position ?? ''))
            throw new Error(`the status bar says "${position}"`);
          return true;
        },
        { timeout: 15_000, message: `the cursor on line ${matchNumber}` },
      );
      await wb.screenshot('transcript-history-document');
    });
  },
);
