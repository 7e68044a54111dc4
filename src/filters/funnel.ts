/**
 * The funnel of a pipeline run: for every stage, rows in, rows out and the count of each
 * rejection reason. Every input row ends kept or rejected with a reason, so for the whole run
 * `input = kept + rejected`, and for each stage `in = out + rejected here` (`check()` asserts both).
 */
export interface StageCounts {
  stage: string;
  in: number;
  out: number;
  rejected: Record<string, number>;
}

export class Funnel {
  private readonly stages = new Map<string, StageCounts>();
  input = 0;

  constructor(stageNames: readonly string[]) {
    for (const stage of stageNames) this.stages.set(stage, { stage, in: 0, out: 0, rejected: {} });
  }

  /**
   * The funnels of disjoint slices of one input (shards), summed stage by stage; `extraStages` are appended
   * empty (the dataset stages a merge runs afterwards). The read stage's `in` is each slice's input.
   */
  static sum(parts: readonly StageCounts[][], extraStages: readonly string[] = []): Funnel {
    const names = parts.length === 0 ? [] : parts[0].map((s) => s.stage);
    for (const part of parts)
      if (part.map((s) => s.stage).join(',') !== names.join(','))
        throw new Error(`funnel: shards with different stages (${names.join(',')} vs ${part.map((s) => s.stage).join(',')})`);
    const funnel = new Funnel([...names, ...extraStages]);
    for (const part of parts) {
      if (part.length > 0) funnel.input += part[0].in;
      for (const stage of part) {
        const counts = funnel.counts(stage.stage);
        counts.in += stage.in;
        counts.out += stage.out;
        for (const [reason, n] of Object.entries(stage.rejected)) counts.rejected[reason] = (counts.rejected[reason] ?? 0) + n;
      }
    }
    return funnel;
  }

  /** The stage rows of a funnel.jsonl. */
  static parseJsonl(text: string): StageCounts[] {
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as StageCounts);
  }

  private counts(stage: string): StageCounts {
    const counts = this.stages.get(stage);
    if (!counts) throw new Error(`funnel: unknown stage "${stage}"`);
    return counts;
  }

  entered(stage: string): void {
    this.counts(stage).in++;
  }

  passed(stage: string): void {
    this.counts(stage).out++;
  }

  rejected(stage: string, reason: string): void {
    const counts = this.counts(stage);
    counts.rejected[reason] = (counts.rejected[reason] ?? 0) + 1;
  }

  /** Rows rejected before any stage (unreadable input lines), counted as their own stage. */
  rows(): StageCounts[] {
    return [...this.stages.values()].map((s) => ({ ...s, rejected: { ...s.rejected } }));
  }

  get kept(): number {
    const all = this.rows();
    return all.length === 0 ? this.input : all[all.length - 1].out;
  }

  get rejectedTotal(): number {
    return this.rows().reduce((n, s) => n + Object.values(s.rejected).reduce((a, b) => a + b, 0), 0);
  }

  /** Throws when a row went missing: the invariant every run must satisfy. */
  check(): void {
    let previousOut = this.input;
    for (const s of this.rows()) {
      const rejected = Object.values(s.rejected).reduce((a, b) => a + b, 0);
      if (s.in !== previousOut) throw new Error(`funnel: stage ${s.stage} saw ${s.in} rows, the previous stage passed ${previousOut}`);
      if (s.in !== s.out + rejected) throw new Error(`funnel: stage ${s.stage} lost rows: in ${s.in} ≠ out ${s.out} + rejected ${rejected}`);
      previousOut = s.out;
    }
    if (this.input !== this.kept + this.rejectedTotal) throw new Error(`funnel: input ${this.input} ≠ kept ${this.kept} + rejected ${this.rejectedTotal}`);
  }

  /** One JSON object per stage and reason, for a `funnel.jsonl` beside the output. */
  toJsonl(): string {
    return (
      this.rows()
        // reasons sorted: the file is the same whatever order rows were judged in (one process or shards)
        .map((s) => JSON.stringify({ ...s, rejected: Object.fromEntries(Object.entries(s.rejected).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }))
        .join('\n') + '\n'
    );
  }

  /** A plotly funnel figure spec (application/vnd.plotly.v1+json) for notebooks. */
  toPlotly(title = 'Filtering funnel'): { data: unknown[]; layout: unknown } {
    const rows = this.rows();
    return {
      data: [{ type: 'funnel', y: ['input', ...rows.map((s) => s.stage)], x: [this.input, ...rows.map((s) => s.out)], textinfo: 'value+percent initial' }],
      layout: { title: { text: title }, margin: { l: 140 } },
    };
  }
}
