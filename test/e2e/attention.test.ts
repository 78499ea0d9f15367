// E2E: know within a second when an agent needs you. Two Holdfast terminals;
// the one in the background reports "waiting" (`holdfast notify`, as an agent's hook does): the
// Holdfast view's badge and the status bar count 1, a notification says so, and its Show button
// brings that session's tab forward. A session in front that waits is not notified. Reported
// "done", the cards show a check and the badge clears. A Claude Code session at its permission prompt
// (permissionStandIn.ts draws the one captured from the real CLI) gets Approve and Deny, not Reply…; they
// type nothing until its hook says it asks, or the user has seen the prompt in a dialog. Text a program
// prints links to nothing: the probe's `[Show](command:…sendSequence…)` reason, clicked in the toast and in
// the Reply… box, types nothing anywhere. The real Claude Code (against a stand-in of its API) is approved
// from its notification, then denied from the palette at its second prompt in the active tab.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { HoldfastClient } from '../../src/client/client';
import type { SessionAttention } from '../../src/protocol/messages';
import { shellQuote } from '../../src/text/shellQuote';
import { UI_JOINER } from '../../src/text/uiText';
import { ICON_MODIFIER_EXPRESSION, ICON_NAME_EXPRESSION, LINK_SOURCE } from '../helpers/vscodeUiPatterns';
import type { Locator } from 'playwright-core';
import { startFakeAnthropicApi } from '../helpers/fakeAnthropicApi';
import { AGENTS_BIN, claudeEnv, writeClaudeHome } from '../helpers/realAgent';
import {
  CODE_SERVER_ENTRY,
  type HoldfastE2E,
  makeTempDir,
  openSidebar,
  SessionsWebview,
  waitFor,
  type Workbench,
  scenarioHooks,
  writeExecutable,
} from './harness';

/**
 * New Agent's Claude Code: an executable that runs the prompt stand-in (compiled beside this file) with node, or the
 * real Claude Code once the last scene has written its start script (REAL_CLAUDE): the profile stays the same, so
 * that scene needs no settings and no workspace of its own.
 */
const binDir = makeTempDir('attention-bin');
const STAND_IN = path.join(__dirname, 'permissionStandIn.js');
const REAL_CLAUDE = path.join(binDir, 'real-claude');
const CLAUDE = writeExecutable(
  binDir,
  'claude',
  `#!/bin/sh\n[ -x ${shellQuote(REAL_CLAUDE)} ] && exec ${shellQuote(REAL_CLAUDE)} "$@"\n` +
    `exec ${shellQuote(process.execPath)} ${shellQuote(STAND_IN)} "$@"\n`,
);

let e2e: HoldfastE2E;

scenarioHooks(
  {
    name: 'attention',
    cleanup: () => fs.rmSync(binDir, { recursive: true, force: true }),
    // The stand-in replaces the built-in Claude Code profile's binary (as in agents.test.ts).
    settings: { 'holdfast.agents': [{ id: 'claude', name: 'Claude Code', argv: [CLAUDE, '--session-id', '{id}'] }] },
  },
  (started) => (e2e = started),
);

/** The number on the Holdfast activity-bar icon ('' without a badge). */
async function badge(wb: Workbench): Promise<string> {
  const item = wb.page.locator('.part.activitybar .action-item', {
    has: wb.page.locator('a.action-label[aria-label^="Holdfast"]'),
  });
  const content = item.locator('.badge .badge-content').first();
  if (!(await content.isVisible().catch(() => false))) return '';
  return ((await content.textContent()) ?? '').trim();
}

/** The status bar's Holdfast item as text, its icons by name (e.g. "pinned 2 bell 1"). */
async function statusText(wb: Workbench): Promise<string> {
  const item = wb.page.locator('.part.statusbar .statusbar-item', { has: wb.page.locator('.codicon-pinned') }).first();
  return item.evaluate((root) => {
    const parts: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === Node.TEXT_NODE) parts.push((node.textContent ?? '').trim());
      else {
        const icon = Array.from((node as Element).classList).find(
          (c) => c.startsWith('codicon-') && c !== 'codicon-modifier',
        );
        if (icon) parts.push(icon.slice('codicon-'.length));
      }
    }
    return parts.filter(Boolean).join(' ');
  });
}

/** The notify credential an agent's hook inside the session reports with. */
function notifyCredential(session: { id: string; pid: number }): string {
  const environ = fs.readFileSync(`/proc/${session.pid}/environ`, 'utf8').split('\0');
  const credential = environ
    .find((v) => v.startsWith('HOLDFAST_NOTIFY_TOKEN='))
    ?.slice('HOLDFAST_NOTIFY_TOKEN='.length);
  assert.ok(credential, `session ${session.id} has its HOLDFAST_NOTIFY_TOKEN`);
  return credential;
}

/** Claude Code's PermissionRequest hook, as it reports: it asks for a permission (with the session's credential). */
async function hookAsks(e2e: HoldfastE2E, session: { id: string; pid: number }): Promise<void> {
  const client = await HoldfastClient.connect({ socket: e2e.iso.socket, client: 'e2e-hooks', version: 'e2e' });
  try {
    const credential = notifyCredential(session);
    await client.request('notify', { session: session.id, state: 'running', permission: true, credential });
  } finally {
    client.close();
  }
}

/** `holdfast notify` as an agent's hook inside the session runs it: with that session's own credential. */
function hookReport(e2e: HoldfastE2E, session: { id: string; pid: number }, state: string): void {
  const r = e2e.iso.cli(['notify', '--session', session.id, '--state', state], {
    env: { HOLDFAST_NOTIFY_TOKEN: notifyCredential(session) },
  });
  assert.equal(r.code, 0, r.stderr);
}

/**
 * Reports from several sessions' hooks that reach the daemon together: sent in one turn on one connection (two
 * CLI runs one after the other can be seconds apart on a busy machine, longer than the notifications' window).
 */
async function hookReportsAtOnce(e2e: HoldfastE2E, sessions: { id: string; pid: number }[]): Promise<void> {
  const client = await HoldfastClient.connect({ socket: e2e.iso.socket, client: 'e2e-hooks', version: 'e2e' });
  try {
    await Promise.all(
      sessions.map((session) =>
        client.request('notify', { session: session.id, state: 'waiting', credential: notifyCredential(session) }),
      ),
    );
  } finally {
    client.close();
  }
}

/** The probe's reason: a link VS Code would run, typing HFLINKED and Enter into the active terminal. */
const LINK = '[Show](command:workbench.action.terminal.sendSequence?{"text":"HFLINKED\\r"})';

/** What the user reads of UI text: without the word joiners uiText() puts in. */
const read = (text: string | null) => (text ?? '').split(UI_JOINER).join('');

/** Clicks the middle of the first `needle` shown inside `container`, a link or not. */
async function clickOnText(wb: Workbench, container: Locator, needle: string): Promise<void> {
  const at = await container.evaluate((root, text) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const from = (node.textContent ?? '').indexOf(text);
      if (from < 0) continue;
      const range = document.createRange();
      range.setStart(node, from);
      range.setEnd(node, from + text.length);
      const box = range.getBoundingClientRect();
      return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    }
    return undefined;
  }, needle);
  assert.ok(at, `"${needle}" is shown`);
  await wb.page.mouse.click(at.x, at.y);
}

/** The link and icon patterns the unit tests of uiText() use (helpers/vscodeUiPatterns.ts) are this workbench's. */
function assertWorkbenchPatterns(): void {
  const workbench = fs.readFileSync(
    path.resolve(CODE_SERVER_ENTRY, '..', '..', '..', 'lib/vscode/out/vs/code/browser/workbench/workbench.js'),
    'utf8',
  );
  assert.ok(workbench.includes(`/${LINK_SOURCE}/gi`), 'the workbench links with LINK_REGEX');
  assert.ok(workbench.includes(`iconNameExpression="${ICON_NAME_EXPRESSION}"`), 'its icon names');
  assert.ok(workbench.includes(`iconModifierExpression="${ICON_MODIFIER_EXPRESSION}"`), 'its icon modifiers');
}

/**
 * In a fresh terminal behind `inFront`, a program prints the probe's link and rings. Its notification and the
 * Reply… box show the reason as text; a click where the link's text is in each types nothing anywhere.
 */
async function linkTextRunsNothing(e2e: HoldfastE2E, inFront: { id: string; name: string }): Promise<void> {
  assertWorkbenchPatterns();
  const wb = e2e.wb;
  const printer = await e2e.newTerminal();
  await wb.clickTerminalTab(inFront.name);
  // Wide enough that the link is on one row (the hidden tab does not size it again until shown).
  assert.equal(e2e.iso.cli(['resize', printer.id, '--cols', '160', '--rows', '24']).code, 0);
  const printf = `printf '\\033[2J\\033[H%s\\n\\a' '${LINK}'`;
  const sent = e2e.iso.cli(['send', printer.id, '--text', printf, '--enter']);
  assert.equal(sent.code, 0, sent.stderr);
  const toast = await wb.toast(`"${printer.name}" is waiting for you`);
  const message = toast.locator('.notification-list-item-message');
  const toastLinks = await message.locator('a').count();
  const toastText = read(await message.textContent());
  // Where the link's text is, a click: VS Code would run the command a link there names.
  await clickOnText(wb, message, 'Show');

  // The Reply… box shows the same reason as its prompt: a click there too.
  if (await toast.isVisible()) await toast.locator('.monaco-button', { hasText: /^Reply…$/ }).click();
  else {
    await wb.runCommand('Holdfast: Reply to Session…');
    await wb.pickQuickItem(printer.name);
  }
  const prompt = wb.page.locator('.quick-input-widget .quick-input-message');
  await prompt.waitFor({ state: 'visible', timeout: 10_000 });
  const promptLinks = await prompt.locator('a').count();
  const promptText = read(await prompt.textContent());
  await clickOnText(wb, prompt, 'Show');
  await wb.page.keyboard.press('Escape');

  // Keys typed in the window after the clicks come after anything the clicks typed.
  await wb.typeInTerminal('echo after-$((6*7))\n');
  await e2e.iso.waitForScreen(inFront.id, /^after-42$/m);
  for (const session of e2e.iso.sessions()) {
    const screen = e2e.iso.screen(session.id).join('\n');
    if (session.id === printer.id) assert.doesNotMatch(screen, /command not found/, 'nothing typed there');
    else assert.doesNotMatch(screen, /HFLINKED/, `the link's text reached "${session.name}"`);
  }
  assert.equal(toastLinks, 0, 'no link in the notification');
  assert.equal(promptLinks, 0, "no link in the Reply… box's prompt");
  // What the program printed is there to read, as it printed it.
  assert.ok(toastText.includes(`is waiting for you: ${LINK}`), toastText);
  assert.ok(promptText.includes(LINK), promptText);
  // It waits no more: Show Next in the next scenario goes to that scenario's sessions, not to this one.
  const removed = e2e.iso.cli(['kill', printer.id, '--remove']);
  assert.equal(removed.code, 0, removed.stderr);
}

test(
  'attention: a background session waiting → badge, status bar, a notification whose Show focuses it; links are text',
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      await e2e.openShared('attention');
      const background = await e2e.newTerminal();
      const front = await e2e.newTerminal();
      await wb.waitForHoldfastTabs([{ name: background.name }, { name: front.name, active: true }], { settleMs: 0 });

      // The sidebar is open (its view counts the badge); nobody waits yet.
      await openSidebar(wb);
      const sidebar = new SessionsWebview(wb, 'sidebar');
      await waitFor(async () => (await sidebar.cardOrder()).length === 2, { timeout: 20_000, message: 'two cards' });
      assert.equal(await badge(wb), '', 'no badge while nobody waits');

      // The background session's agent says it waits for you.
      hookReport(e2e, background, 'waiting');
      await sidebar.waitForPhase(background.id, 'waiting');
      await waitFor(async () => (await badge(wb)) === '1', { timeout: 10_000, message: 'the badge to show 1' });
      await waitFor(async () => /\bbell 1\b/.test(await statusText(wb)), {
        timeout: 10_000,
        message: 'the status bar to count 1 waiting',
      });
      const toast = await wb.toast('is waiting for you', 10_000);
      assert.match((await toast.textContent()) ?? '', new RegExp(`"${background.name}" is waiting for you`));
      const show = toast.locator('.monaco-button', { hasText: /^Show$/ });
      await show.waitFor({ state: 'visible', timeout: 5_000 });
      assert.equal((await wb.notifications()).filter((n) => n.includes('is waiting for you')).length, 1);
      const shot = await wb.screenshot('attention-badge-notification');
      // The README's picture, renewed on demand (HOLDFAST_SCREENSHOTS=DIR), never by an ordinary run.
      const pictures = process.env.HOLDFAST_SCREENSHOTS;
      if (pictures) fs.copyFileSync(shot, path.join(pictures, 'attention.png'));

      // Show: the waiting session's tab becomes the active terminal.
      await show.click();
      await wb.waitForHoldfastTabs(
        [
          { name: background.name, active: true },
          { name: front.name, active: false },
        ],
        {
          settleMs: 0,
        },
      );
      await toast.waitFor({ state: 'hidden', timeout: 5_000 });

      // In front now, it waits again: no notification. The other one, in the background, does notify:
      // one notification per wait, and only for a session not in front.
      hookReport(e2e, background, 'running');
      await sidebar.waitForPhase(background.id, 'running');
      hookReport(e2e, background, 'waiting');
      hookReport(e2e, front, 'waiting');
      await sidebar.waitForPhase(front.id, 'waiting');
      await wb.toast(`"${front.name}" is waiting for you`, 10_000);
      assert.equal(await sidebar.phase(background.id), 'waiting');
      // The text goes on with why it waits (the last text on its screen): the name is what tells them apart.
      const waiting = (await wb.notifications()).filter((n) => n.includes('is waiting for you'));
      assert.equal(waiting.length, 1, `no notification for the session in front: ${JSON.stringify(waiting)}`);
      assert.ok(waiting[0].startsWith(`Holdfast: "${front.name}" is waiting for you`), waiting[0]);
      await waitFor(async () => (await badge(wb)) === '2', { timeout: 10_000, message: 'the badge to show 2' });

      // Their turns end: a check on the cards, no badge, no bell in the status bar.
      hookReport(e2e, background, 'done');
      hookReport(e2e, front, 'done');
      await sidebar.waitForPhase(background.id, 'done');
      await sidebar.waitForPhase(front.id, 'done');
      assert.equal(await sidebar.stateText(background.id), 'Done');
      await waitFor(async () => (await badge(wb)) === '', { timeout: 10_000, message: 'the badge to clear' });
      assert.doesNotMatch(await statusText(wb), /\bbell\b/);
      await wb.screenshot('attention-done');

      // Text a program printed links nothing, wherever VS Code shows it.
      await linkTextRunsNothing(e2e, background);
    });
  },
);

/** Starts a question in the session's shell: `read` with a prompt, then the answer echoed back. */
async function ask(e2e: HoldfastE2E, session: { id: string }, question: string): Promise<void> {
  const r = e2e.iso.cli(['send', session.id, '--text', `read -p '${question} ' x; echo "answer:$x"`, '--enter']);
  assert.equal(r.code, 0, r.stderr);
  await e2e.iso.waitForScreen(session.id, new RegExp(`^${question.replace(/[?.]/g, '\\$&')} $`, 'm'));
}

test(
  'agents waiting at once: one notification, Show Next; ctrl+k ctrl+g and ctrl+shift+g walk them; Reply… answers',
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      await e2e.openShared('attention');
      const first = await e2e.newTerminal();
      const second = await e2e.newTerminal();
      const third = await e2e.newTerminal();
      const front = await e2e.newTerminal();
      await ask(e2e, first, 'Deploy first?');
      await ask(e2e, second, 'Deploy second?');
      await ask(e2e, third, 'Deploy third?');

      // Two start waiting together: one notification names both, and Show Next goes to the first.
      await hookReportsAtOnce(e2e, [first, second]);
      const both = await wb.toast('2 sessions need you');
      // They started waiting in the same instant: the order is the notification's own (oldest first, then by id).
      const named = /need you: ([^,]+), ([^.,]+)/.exec((await both.textContent()) ?? '');
      assert.ok(named, 'the notification names the two');
      const [one, other] = [named[1], named[2]].map((name) => [first, second].find((s) => s.name === name));
      assert.ok(one && other && one !== other, `the notification names ${first.name} and ${second.name}`);
      assert.equal((await wb.notifications()).filter((n) => n.includes('is waiting for you')).length, 0);
      await both.locator('.monaco-button', { hasText: /^Show Next$/ }).click();
      await waitFor(async () => (await wb.terminalTabs()).find((tab) => tab.name === one.name)?.active, {
        timeout: 10_000,
        message: 'Show Next to bring the first named forward',
      });

      // Next from the first goes to the other one waiting; Previous comes back.
      for (const [key, expected] of [
        ['Control+G', other],
        ['Control+Shift+G', one],
      ] as const) {
        await wb.page.keyboard.press('Control+K');
        await wb.page.keyboard.press(key);
        await waitFor(async () => (await wb.terminalTabs()).find((tab) => tab.name === expected.name)?.active, {
          timeout: 10_000,
          message: `ctrl+k ${key} to bring ${expected.name} forward`,
        });
      }

      // One alone: its notification says why it waits, and Reply… answers it in place.
      hookReport(e2e, third, 'waiting');
      const toast = await wb.toast(`"${third.name}" is waiting for you`);
      assert.match((await toast.textContent()) ?? '', /Deploy third\?/, 'the notification shows the question');
      const shot = await wb.screenshot('attention-reason-reply');
      if (process.env.HOLDFAST_SCREENSHOTS)
        fs.copyFileSync(shot, path.join(process.env.HOLDFAST_SCREENSHOTS, 'reply.png'));
      await toast.locator('.monaco-button', { hasText: /^Reply…$/ }).click();
      await wb.answerInputBox('yes please');
      await e2e.iso.waitForScreen(third.id, /^answer:yes please$/m);
      assert.doesNotMatch(e2e.iso.screen(first.id).join('\n'), /^answer:/m, 'nothing reached another session');
      assert.doesNotMatch(e2e.iso.screen(front.id).join('\n'), /^answer:/m, 'nothing reached the session in front');
    });
  },
);

test(
  'a Claude Code session at its permission prompt: the notification offers Approve and Deny; Approve answers it',
  { timeout: 300_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      await e2e.openShared('attention');
      // The sidebar first: opening it narrows the terminals, and the stand-in redraws for their width.
      await openSidebar(wb);
      const sidebar = new SessionsWebview(wb, 'sidebar');
      await wb.runCommand('Holdfast: New Agent…');
      await wb.pickQuickItem(/Claude Code/);
      const agent = await waitFor(
        () => e2e.iso.sessions().find((s) => s.state === 'running' && s.metadata?.agent !== undefined),
        { timeout: 30_000, message: 'the agent session' },
      );
      assert.equal((agent.metadata?.agent as { profile?: string }).profile, 'claude');
      const front = await e2e.newTerminal();
      await wb.waitForHoldfastTabs([{ name: agent.name }, { name: front.name, active: true }], { settleMs: 0 });
      // In the background now, it reaches its prompt (the stand-in's cue): the daemon sees it on the screen.
      await e2e.iso.waitForScreen(agent.id, /Working…/);
      const cue = e2e.iso.cli(['send', agent.id, '--text', 'p']);
      assert.equal(cue.code, 0, cue.stderr);
      await e2e.iso.waitForScreen(agent.id, /^ Do you want to proceed\? *\n ❯ 1\. Yes *$/m);
      await e2e.iso.waitForScreen(agent.id, /^ Esc to cancel · Tab to amend *$/m);

      // Its screen and a hook say it waits: one notification, saying what it asks, with Approve and Deny, not
      // Reply…. The hook did not say it asks for a permission: a program may have drawn the prompt.
      hookReport(e2e, agent, 'waiting');
      const toast = await wb.toast(`"${agent.name}" is waiting for you`);
      assert.match(
        (await toast.textContent()) ?? '',
        /Do you want to proceed\?/,
        'the notification shows the question',
      );
      const buttons = async () => (await toast.locator('.monaco-button').allTextContents()).map((b) => b.trim());
      const approve = toast.locator('.monaco-button', { hasText: /^Approve$/ });
      await approve.waitFor({ state: 'visible', timeout: 5_000 });
      assert.deepEqual(await buttons(), ['Approve', 'Deny', 'Show']);
      // The card offers them too.
      await sidebar.waitForPhase(agent.id, 'waiting');
      await waitFor(async () => (await sidebar.actions(agent.id))?.includes('approve'), {
        timeout: 10_000,
        message: "the card's Approve",
      });
      const actions = (await sidebar.actions(agent.id)) ?? [];
      assert.ok(actions.includes('deny') && !actions.includes('replySession'), actions.join(' '));
      const shot = await wb.screenshot('attention-approve');
      if (process.env.HOLDFAST_SCREENSHOTS)
        fs.copyFileSync(shot, path.join(process.env.HOLDFAST_SCREENSHOTS, 'approve.png'));

      // Approve shows the prompt as its screen has it first; cancelled, nothing is typed.
      const frontScreen = e2e.iso.screen(front.id);
      await approve.click();
      const dialog = await waitFor(() => wb.dialogText(), { timeout: 10_000, message: "Approve's dialog" });
      assert.match(dialog, /Its agent's own hook has not said that it asks/);
      assert.match(dialog, /Do you want to proceed\?.*1\. Yes.*Esc to cancel · Tab to amend/s);
      await wb.clickButton(/^Cancel$/);
      await waitFor(async () => (await wb.dialogText()) === undefined, { timeout: 5_000, message: 'the dialog gone' });
      assert.match(e2e.iso.screen(agent.id).join('\n'), /Do you want to proceed\?/, 'still at its prompt');
      assert.ok(!e2e.iso.screen(agent.id).includes('approved'), 'nothing was typed');

      // Its PermissionRequest hook says it asks: the card's Approve types the prompt's "1" at once, no dialog.
      await hookAsks(e2e, agent);
      await waitFor(() => (e2e.iso.session(agent.id).attention as SessionAttention | undefined)?.hookAgrees, {
        timeout: 10_000,
        message: 'the hook and the screen to agree',
      });
      await sidebar.clickAction(agent.id, 'approve');
      await e2e.iso.waitForScreen(agent.id, /^approved$/m);
      await sidebar.waitForText(agent.id, 'approved');
      assert.equal(await wb.dialogText(), undefined, 'no dialog');
      assert.doesNotMatch(e2e.iso.screen(agent.id).join('\n'), /denied|Do you want/, 'one answer, the prompt gone');
      assert.deepEqual(e2e.iso.screen(front.id), frontScreen, 'nothing reached the session in front');
    });
  },
);

test(
  "the real Claude Code: Approve in its notification; at its second prompt, in the tab in front, the palette's Deny",
  { timeout: 420_000 },
  async (t) => {
    await e2e.run(t.name, async () => {
      const wb = e2e.wb;
      // Claude Code 2.1.328 (scripts/setup-agents.sh) in a HOME of its own, against a stand-in of its API that
      // asks for one file, then (the next request) another; New Agent's Claude Code runs it from here on.
      await e2e.openShared('attention');
      const workspace = fs.realpathSync(e2e.workspace('attention'));
      // Its HOME beside the workspace, so it goes with the scenario's folder (Claude Code writes there till it ends).
      const home = fs.mkdtempSync(path.join(path.dirname(workspace), 'claude-home-'));
      writeClaudeHome(home, workspace);
      const [made, made2] = [path.join(workspace, 'made.txt'), path.join(workspace, 'made-2.txt')];
      const api = await startFakeAnthropicApi([
        { name: 'Write', input: { file_path: made, content: 'one\n' } },
        { name: 'Write', input: { file_path: made2, content: 'two\n' } },
      ]);
      t.after(() => api.close());
      const exports = Object.entries(claudeEnv(home, api.url)).map(([k, v]) => `export ${k}=${shellQuote(v)}`);
      const claude = writeExecutable(
        binDir,
        path.basename(REAL_CLAUDE),
        `#!/bin/sh\n${exports.join('\n')}\nexec ${shellQuote(path.join(AGENTS_BIN, 'claude'))} "$@"\n`,
      );
      assert.equal(claude, REAL_CLAUDE);
      const before = new Set(e2e.iso.sessions().map((s) => s.id));
      await wb.runCommand('Holdfast: New Agent…');
      await wb.pickQuickItem(/Claude Code/);
      const agent = await waitFor(
        () => e2e.iso.sessions().find((s) => !before.has(s.id) && s.metadata?.agent !== undefined),
        { timeout: 30_000, message: 'the agent session' },
      );
      // Its first start offers auto mode: keep asking (the second choice).
      await e2e.iso.waitForScreen(agent.id, /Make auto mode your default permission mode\?/, 60_000);
      assert.equal(e2e.iso.cli(['send', agent.id, '--key', 'down']).code, 0);
      await e2e.iso.waitForScreen(agent.id, /❯ No, keep manual mode/);
      assert.equal(e2e.iso.cli(['send', agent.id, '--key', 'enter']).code, 0);
      await e2e.iso.waitForScreen(agent.id, /\? for shortcuts/, 30_000);
      const front = await e2e.newTerminal();
      await wb.waitForHoldfastTabs([{ name: agent.name }, { name: front.name, active: true }], { settleMs: 0 });

      // In the background it asks to create made.txt: the notification's Approve answers at once (its
      // PermissionRequest hook and its screen agree), and the file is written.
      assert.equal(e2e.iso.cli(['send', agent.id, '--text', 'Create made.txt please']).code, 0);
      assert.equal(e2e.iso.cli(['send', agent.id, '--key', 'enter']).code, 0);
      const toast = await wb.toast(`"${agent.name}" is waiting for you`, 60_000);
      assert.match((await toast.textContent()) ?? '', /Do you want to create made\.txt\?/);
      await toast.locator('.monaco-button', { hasText: /^Approve$/ }).click();
      await waitFor(() => fs.existsSync(made), { timeout: 60_000, message: 'the approved Write to make made.txt' });
      assert.equal(await wb.dialogText(), undefined, 'no dialog: its hook said it asks');

      // Its turn done, its tab is brought forward; a second request is typed there.
      await e2e.iso.waitForScreen(agent.id, /\? for shortcuts/, 60_000);
      await wb.clickTerminalTab(agent.name);
      await wb.typeInTerminal('Create made-2.txt please');
      await wb.pressInTerminal('Enter');
      await e2e.iso.waitForScreen(agent.id, /Do you want to create made-2\.txt\?/, 60_000);
      await e2e.iso.waitForScreen(agent.id, /Esc to cancel · Tab to amend/);
      await waitFor(() => (e2e.iso.session(agent.id).attention as SessionAttention | undefined)?.hookAgrees, {
        timeout: 20_000,
        message: 'the second prompt marked',
      });
      // The palette takes the focus from the terminal (a focus report to Claude Code); its Deny answers the
      // prompt in the tab in front.
      await wb.runCommand("Holdfast: Deny Agent's Permission Prompt");
      await e2e.iso.waitForScreen(agent.id, /Interrupted|Rejected|did not|Did not/, 30_000);
      assert.equal(await wb.dialogText(), undefined, 'answered at once: its hook said it asks');
      const said = await wb.notifications();
      assert.ok(!said.some((n) => n.includes('no session is at a permission prompt')), JSON.stringify(said));
      assert.equal(fs.existsSync(made2), false, 'the denied Write made nothing');
      assert.equal(api.toolCalls.asked, 2);
    });
  },
);
