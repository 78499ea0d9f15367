// Which panel terminals VS Code shows together (a split group), as far as this window can tell: VS Code's API
// does not say. Groups only ever merge: two terminals wrongly taken to be together cost a hidden tab its
// output (as before views), two wrongly taken apart would freeze a tab on screen.
// Pure Node: unit tests load it without VS Code, so it never imports vscode (eslint.config.mjs).

export class TerminalGroups<T> {
  private readonly groupOf = new Map<T, number>();
  private nextGroup = 1;

  /** `a` and `b` are in one group from now on (with every terminal of either). */
  join(a: T, b: T): void {
    const [ga, gb] = [this.group(a), this.group(b)];
    if (ga === gb) return;
    for (const [terminal, group] of this.groupOf) if (group === gb) this.groupOf.set(terminal, ga);
  }

  together(a: T, b: T): boolean {
    return a === b || (this.groupOf.has(a) && this.groupOf.get(a) === this.groupOf.get(b));
  }

  /** A closed terminal. */
  forget(terminal: T): void {
    this.groupOf.delete(terminal);
  }

  private group(terminal: T): number {
    let group = this.groupOf.get(terminal);
    if (group === undefined) this.groupOf.set(terminal, (group = this.nextGroup++));
    return group;
  }
}
