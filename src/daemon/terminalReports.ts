// What a terminal sends by itself, nobody typing: focus reports (CSI I and CSI O, when the program asked for
// them with DEC mode 1004: VS Code sends one whenever the tab gains or loses focus, opening the command
// palette included) and mouse reports (X10 CSI M b x y, SGR CSI < b;x;y M/m, urxvt CSI b;x;y M: each motion
// over a program that tracks the mouse). Such input answers no question a session waits on.

/** A report, anchored where the last one ended. */
const REPORT = /\x1b\[(?:[IO]|<\d{1,4};\d{1,5};\d{1,5}[Mm]|\d{1,4};\d{1,5};\d{1,5}M|M[\s\S]{3})/y;
/** More than this at once is typing or a paste, not a burst of reports. */
const MAX_REPORTS_LENGTH = 4096;

/** Whether `data` is nothing but focus and mouse reports. */
export function onlyTerminalReports(data: string | Buffer): boolean {
  if (data.length === 0 || data.length > MAX_REPORTS_LENGTH || data[0] !== (typeof data === 'string' ? '\x1b' : 0x1b))
    return false;
  // latin1: one character per byte, so an X10 report's coordinate bytes count as one each.
  const text = typeof data === 'string' ? data : data.toString('latin1');
  REPORT.lastIndex = 0;
  while (REPORT.lastIndex < text.length) if (!REPORT.test(text)) return false;
  return true;
}
