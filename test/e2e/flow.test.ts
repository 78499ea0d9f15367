// Flow control to the glass, in a real VS Code with every core kept busy: while one Holdfast tab floods
// hidden, a key typed in another shows soon; shown again, the flooded tab has its last screen and the
// session's whole scrollback, consecutive, with no line missing or doubled. (The bench, `npm run bench:echo`,
// gives the figures beside VS Code's own terminals.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { echoOnce, keysShown } from './echo';
import { busyUntilTheEnd, type HoldfastE2E, PROMPT_RE, scenarioHooks, trace, waitFor } from './harness';

let e2e: HoldfastE2E;
const SCROLLBACK = 3000;

scenarioHooks(
  {
    name: 'flow',
    settings: { 'holdfast.scrollback': SCROLLBACK, 'terminal.integrated.scrollback': SCROLLBACK },
  },
  (started) => (e2e = started),
);

/**
 * Each key's echo, generous for a machine whose cores are all busy: before hidden tabs were sent nothing, a
 * hidden flood held each key back 4-10 s here; the bench measures 50-100 ms, as VS Code's own terminals.
 */
const ECHO_BOUND_MS = 3000;
const KEYS = 8;

/**
 * The whole buffer of the terminal shown (select all, copy), as the person would paste it, once it holds `lines`
 * numbered lines: the scrollback comes after the screen, so both are done again until it does.
 */
async function copiedText(lines: number): Promise<string> {
  const wb = e2e.wb;
  await wb.context.grantPermissions(['clipboard-read', 'clipboard-write']);
  let copied = '';
  await waitFor(
    async () => {
      await wb.page.evaluate(() => navigator.clipboard.writeText(''));
      await wb.focusTerminal();
      await wb.runCommand('Terminal: Select All');
      // The terminal has the focus back once the palette closes: its own copy key, as a person presses it.
      await waitFor(
        () => wb.page.evaluate(() => !!document.activeElement?.classList.contains('xterm-helper-textarea')),
        {
          timeout: 5_000,
          message: 'the terminal to have the focus back',
        },
      );
      await wb.page.keyboard.press('Control+Shift+C');
      copied = await wb.page.evaluate(() => navigator.clipboard.readText());
      return numbersOf(copied.split(/\r?\n/)).length >= lines;
    },
    { timeout: 120_000, interval: 1000, message: `a copy of the tab with ${lines} numbered lines` },
  ).catch(() => undefined); // the assertions below say what the last copy held
  return copied;
}

const numbersOf = (lines: string[]) =>
  lines
    .map((l) => l.trim())
    .filter((l) => /^\d+$/.test(l))
    .map(Number);

test('typing while a hidden tab floods stays responsive; shown, it has its last screen and scrollback', async (t) => {
  await e2e.run(t.name, async () => {
    const wb = e2e.wb;
    await e2e.open(e2e.workspace('flow'));
    const typed = await e2e.newTerminal();
    const flood = await e2e.newTerminal();
    // Every core busy from the flood on: the echo bound and what the tab holds must not depend on speed.
    busyUntilTheEnd(t);
    // As a person starts a build: in its tab, then on to another one, which hides it.
    await wb.typeInTerminal('seq 1 1000000000\n');
    // Well under way (about 23 MB printed): a renderer sent all of it would be seconds behind by now.
    await e2e.iso.waitForScreen(flood.id, /^[3-9]\d{6}$|^\d{8,}$/m, 60_000);
    await wb.clickTerminalTab(typed.name);
    await wb.focusTerminal();
    const base = await keysShown(wb.page);
    const echoes: number[] = [];
    for (let i = 1; i <= KEYS; i++) echoes.push((await echoOnce(wb.page, base + i, 30_000)) ?? Infinity);
    trace(`echo while a hidden tab floods: ${echoes.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    assert.doesNotMatch(e2e.iso.cli(['read', flood.id]).stdout, PROMPT_RE, 'the flood ran while the keys were typed');
    for (const ms of echoes) assert.ok(ms < ECHO_BOUND_MS, `an echo took ${ms} ms (all: ${echoes.join(', ')})`);

    e2e.iso.cli(['send', flood.id, '--key', 'ctrl-c']);
    await e2e.iso.waitForScreen(flood.id, PROMPT_RE);
    const kept = JSON.parse(e2e.iso.cli(['read', flood.id, '--scrollback', String(SCROLLBACK), '--json']).stdout) as {
      lines: string[];
    };
    const keptNumbers = numbersOf(kept.lines);
    const last = keptNumbers[keptNumbers.length - 1];
    await wb.clickTerminalTab(flood.name);
    await wb.waitForTerminalText(new RegExp(`^${last}$`, 'm'), 30_000); // its last screen
    const shown = numbersOf((await copiedText(keptNumbers.length)).split(/\r?\n/));
    trace(`the flooded tab shows ${shown.length} numbered lines, ${shown[0]}..${shown[shown.length - 1]}`);
    for (let i = 1; i < shown.length; i++) assert.equal(shown[i], shown[i - 1] + 1, `line after ${shown[i - 1]}`);
    assert.deepEqual(shown, keptNumbers, 'the tab holds what the session kept');
  });
});
