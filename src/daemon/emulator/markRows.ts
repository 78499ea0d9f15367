// Rows of xterm's normal buffer that follow it as it scrolls, trims, and inserts or deletes rows (a
// resize's reflow), as xterm's own markers do, for the many marks of a shell (shellMarks.ts) at the cost
// of one: an xterm marker has three listeners of its own, each called on every row a full buffer trims
// (a flood's every line) and searched for when it goes. These share one listener of each kind, and a
// trim only moves a shared base: a row's line is its place counted from the buffer's first row ever.
import type { IDisposable } from '../../base/disposable';
import { core, type CoreBuffer } from './xtermInternals';
import type { Terminal } from '@xterm/headless';

/** A row that moves with the buffer; gone once trimmed off its top, deleted, or its buffer replaced. */
export interface MarkRow {
  readonly line: number;
  readonly gone: boolean;
}

class Row implements MarkRow {
  deleted = false;
  constructor(
    private readonly rows: MarkRows,
    /** Its line plus the rows trimmed off the buffer before it. */
    public at: number,
  ) {}

  get line(): number {
    return this.at - this.rows.trimmed;
  }

  get gone(): boolean {
    return this.deleted || this.line < 0;
  }
}

export class MarkRows implements IDisposable {
  private lines: CoreBuffer['lines'] | undefined;
  private listeners: IDisposable[] = [];
  private rows = new Set<Row>();
  /** Rows trimmed off the top of the buffer since these rows began. */
  trimmed = 0;

  constructor(private readonly terminal: Terminal) {}

  /** A row at `line` of the normal buffer (as its rows are now). */
  at(line: number): MarkRow {
    this.bind();
    const row = new Row(this, line + this.trimmed);
    this.rows.add(row);
    return row;
  }

  /** The row is gone, and no longer follows the buffer. */
  release(row: MarkRow): void {
    (row as Row).deleted = true;
    this.rows.delete(row as Row);
  }

  /** Listens to the normal buffer's rows (again, when a reset or a clear made them anew: old rows are gone). */
  private bind(): void {
    const lines = core(this.terminal).buffers.normal.lines;
    if (lines === this.lines) return;
    this.unbind();
    this.lines = lines;
    this.listeners = [
      lines.onTrim((amount) => {
        this.trimmed += amount;
      }),
      lines.onInsert(({ index, amount }) => {
        for (const row of this.rows) if (row.line >= index) row.at += amount;
      }),
      lines.onDelete(({ index, amount }) => {
        for (const row of this.rows) {
          const line = row.line;
          if (line >= index && line < index + amount) row.deleted = true;
          if (line > index) row.at -= amount;
        }
      }),
    ];
  }

  private unbind(): void {
    for (const listener of this.listeners) listener.dispose();
    this.listeners = [];
    for (const row of this.rows) row.deleted = true;
    this.rows.clear();
  }

  dispose(): void {
    this.unbind();
  }
}
