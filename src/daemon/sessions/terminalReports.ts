// What a terminal sends by itself, nobody typing: focus reports (CSI I and CSI O, when the program asked for
// them with DEC mode 1004: VS Code sends one whenever the tab gains or loses focus, opening the command
// palette included), mouse reports (X10 CSI M b x y, SGR CSI < b;x;y M/m, urxvt CSI b;x;y M: each motion
// over a program that tracks the mouse), and the answers to a program's queries (device attributes CSI ? … c,
// status CSI … n, the cursor CSI r;c R, the window CSI … t, modes CSI … $ y, OSC colours, DCS strings): an
// agent asks them as it redraws, and the terminal in front answers. Such input answers no question a session
// waits on.

/** A report, anchored where the last one ended. */
const REPORT = new RegExp(
  [
    /\x1b\[[IO]/, // focus
    /\x1b\[<\d{1,4};\d{1,5};\d{1,5}[Mm]/, // SGR mouse
    /\x1b\[\d{1,4};\d{1,5};\d{1,5}M/, // urxvt mouse
    /\x1b\[M[\s\S]{3}/, // X10 mouse
    /\x1b\[[?>=]?[\d;]{0,64}[cntR]/, // device attributes, status, window, cursor position
    /\x1b\[\??[\d;]{1,64}\$y/, // mode report
    /\x1b\][^\x07\x1b]{0,1024}(?:\x07|\x1b\\)/, // OSC answer (colours)
    /\x1bP[^\x1b]{0,1024}\x1b\\/, // DCS answer (XTVERSION, DECRQSS)
  ]
    .map((part) => part.source)
    .join('|'),
  'y',
);
/** More than this at once is typing or a paste, not a burst of reports. */
const MAX_REPORTS_LENGTH = 4096;

/** Whether `data` is nothing but the terminal's own reports and answers. */
export function onlyTerminalReports(data: string | Buffer): boolean {
  if (data.length === 0 || data.length > MAX_REPORTS_LENGTH || data[0] !== (typeof data === 'string' ? '\x1b' : 0x1b))
    return false;
  // latin1: one character per byte, so an X10 report's coordinate bytes count as one each.
  const text = typeof data === 'string' ? data : data.toString('latin1');
  REPORT.lastIndex = 0;
  while (REPORT.lastIndex < text.length) if (!REPORT.test(text)) return false;
  return true;
}
