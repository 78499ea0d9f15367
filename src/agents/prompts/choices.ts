// The list of numbered choices the agents' permission prompts draw: "1." to "N." in order, one row
// each (a long one may wrap onto indented rows), exactly one highlighted.

/** The highest number a one-key answer can pick. */
const MAX_CHOICES = 9;

export interface ChoiceRows {
  /** A choice's row: groups (1) its highlight mark or a blank, (2) its number, (3) its label. */
  readonly choice: RegExp;
  /** The mark of the highlighted choice. */
  readonly highlight: string;
  /** A wrapped choice's next row: group (1) the rest of its label. */
  readonly continuation?: RegExp;
}

export interface Choices {
  /** The labels in order (choice n is labels[n - 1]), wrapped rows joined with a space. */
  readonly labels: string[];
  /** The row after the last choice. */
  readonly end: number;
}

/** The numbered choices from `rows[from]` on; undefined unless numbered 1..N (2 ≤ N ≤ 9), one highlighted. */
export function numberedChoices(rows: readonly string[], from: number, shape: ChoiceRows): Choices | undefined {
  const labels: string[] = [];
  let highlighted = 0;
  let row = from;
  for (; row < rows.length; row++) {
    const choice = shape.choice.exec(rows[row]);
    const continuation = shape.continuation?.exec(rows[row]);
    if (choice) {
      if (Number(choice[2]) !== labels.length + 1) return undefined;
      if (choice[1] === shape.highlight) highlighted++;
      labels.push(choice[3]);
    } else if (continuation && labels.length > 0) labels[labels.length - 1] += ` ${continuation[1]}`;
    else break;
  }
  if (highlighted !== 1 || labels.length < 2 || labels.length > MAX_CHOICES) return undefined;
  return { labels, end: row };
}
