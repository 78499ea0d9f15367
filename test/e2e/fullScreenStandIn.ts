// What the e2e's full-screen agent stand-ins share (claudeStandIn.ts, codexStandIn.ts): like the real
// agents they draw on the alternate screen, so nothing they show reaches the scrollback, and read keys
// in raw mode, drawing the line being typed themselves. Each entered line is a turn: `answer` records
// it where the agent keeps its conversation and returns what the screen shows of it.
const ESC = '\x1b';

/**
 * Draws `rows()` on the alternate screen (again on each resize and after each key) and hands each key read
 * in raw mode to `onKey`; ctrl+c or the end of input leaves the alternate screen and exits.
 */
export function runOnAlternateScreen(rows: () => string[], onKey: (key: string) => void): void {
  const draw = () => process.stdout.write(`${ESC}[H${ESC}[2J` + rows().join('\r\n'));
  const quit = () => {
    process.stdout.write(`${ESC}[?1049l`);
    process.exit(0);
  };
  process.stdout.write(`${ESC}[?1049h`);
  draw();
  process.stdin.setRawMode(true);
  process.stdin.on('end', quit);
  process.stdout.on('resize', draw);
  process.stdin.on('data', (data: Buffer) => {
    for (const key of data.toString('utf8')) {
      if (key === '\x03') quit();
      else onKey(key);
    }
    draw();
  });
}

export function runFullScreen(title: string, answer: (prompt: string) => string[]): void {
  const shown: string[] = [];
  let typed = '';
  const rows = () => {
    const rule = '─'.repeat(Math.max(10, (process.stdout.columns || 80) - 2));
    const box = '─'.repeat(title.length + 4);
    return [`╭${box}╮`, `│  ${title}  │`, `╰${box}╯`, '', ...shown, rule, `> ${typed}`, rule, '  ? for shortcuts'];
  };
  runOnAlternateScreen(rows, (key) => {
    if (key === '\r') {
      if (typed.trim() !== '') shown.push(`> ${typed.trim()}`, ...answer(typed.trim()), '');
      typed = '';
    } else if (key === '\x7f') typed = typed.slice(0, -1);
    else if (key >= ' ') typed += key;
  });
}
