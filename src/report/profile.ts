/**
 * A profile's summary (the spans and core samples `CCKIT_PROFILE` collects, src/util/profile.ts): wall and CPU time
 * per stage, each training run's rate beside one core's dense-product rate, and how many of the machine's cores the
 * run kept busy over time. Markdown tables, so docs/performance.md can hold them as printed.
 */
import * as fs from 'fs';

import { SPAN_KINDS, type ProfileSample, type ProfileSpan, type SpanKind } from '../util/profile';

export interface ProfileRecords {
  spans: ProfileSpan[];
  samples: ProfileSample['sample'][];
}

/** The records of a profile file; a line that is not a record is an error naming the file and line. */
export function readProfile(file: string): ProfileRecords {
  const spans: ProfileSpan[] = [];
  const samples: ProfileSample['sample'][] = [];
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new Error(`${file}:${i + 1}: not a JSON line`);
    }
    const r = record as Partial<ProfileSpan> & Partial<ProfileSample>;
    if (r.sample && typeof r.sample.time === 'number') samples.push(r.sample);
    else if (typeof r.kind === 'string' && (SPAN_KINDS as readonly string[]).includes(r.kind) && typeof r.wall === 'number' && typeof r.start === 'number')
      spans.push(r as ProfileSpan);
    else throw new Error(`${file}:${i + 1}: neither a span nor a core sample`);
  });
  return { spans, samples };
}

/** Seconds covered by the union of `[start, start + wall)` intervals (spans that overlap count once). */
function coveredSeconds(spans: readonly ProfileSpan[]): number {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  let covered = 0;
  let end = -Infinity;
  for (const s of sorted) {
    const from = Math.max(s.start, end);
    const to = s.start + s.wall;
    if (to > from) covered += to - from;
    end = Math.max(end, to);
  }
  return covered / 1000;
}

const within = (inner: ProfileSpan, outer: ProfileSpan) =>
  inner.thread === outer.thread && inner.start >= outer.start && inner.start + inner.wall <= outer.start + outer.wall + 1;

export interface StageRow {
  stage: SpanKind;
  spans: number;
  /** Sum of the spans' wall times (rows trained side by side add up). */
  wallSeconds: number;
  /** Wall time while at least one span of the stage ran. */
  coveredSeconds: number;
  cpuSeconds: number;
  /** CPU ÷ wall: about 1 for one busy thread; below 1 where the thread waited (on worker threads, I/O); process CPU off Linux. */
  cpuPerWall: number;
}

export interface TrainingRow {
  run: string;
  steps: number;
  wallSeconds: number;
  /** Of which validation captioning while training. */
  validateSeconds: number;
  msPerStep: number;
  /** Product GFLOP/s of the training steps (validation excluded); undefined where the model's products are not counted. */
  gflops?: number;
  /** That rate as a share of one thread's dense-product rate. */
  ofLimit?: number;
}

export interface ProfileSummary {
  wallSeconds: number;
  stages: StageRow[];
  training: TrainingRow[];
  /** Mean cores in use over the run: this process (all threads) and the whole machine (other work included). */
  cores: { process: number; machine?: number; available: number; oneIdleShare: number; timeline: { fromSeconds: number; process: number; machine?: number }[] };
  /** One thread's dense-product rate (GFLOP/s) the training rates are set beside. */
  denseGflops?: number;
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

export function summariseProfile(records: ProfileRecords, options: { cores: number; denseGflops?: number; buckets?: number }): ProfileSummary {
  const { spans, samples } = records;
  const first = Math.min(...spans.map((s) => s.start), ...samples.map((s) => s.time - 1000));
  const last = Math.max(...spans.map((s) => s.start + s.wall), ...samples.map((s) => s.time));
  const wallSeconds = Number.isFinite(first) && Number.isFinite(last) ? (last - first) / 1000 : 0;
  const stages: StageRow[] = SPAN_KINDS.flatMap((stage) => {
    const of = spans.filter((s) => s.kind === stage);
    if (of.length === 0) return [];
    const wall = of.reduce((a, s) => a + s.wall, 0) / 1000;
    const cpu = of.reduce((a, s) => a + s.cpu, 0) / 1000;
    return [{ stage, spans: of.length, wallSeconds: wall, coveredSeconds: coveredSeconds(of), cpuSeconds: cpu, cpuPerWall: wall > 0 ? cpu / wall : NaN }];
  });
  const validations = spans.filter((s) => s.kind === 'validate');
  const training: TrainingRow[] = spans
    .filter((s) => s.kind === 'train' && (s.work?.steps ?? 0) > 0)
    .map((s) => {
      const steps = s.work!.steps!;
      const validateSeconds = validations.filter((v) => within(v, s)).reduce((a, v) => a + v.wall, 0) / 1000;
      const stepSeconds = s.wall / 1000 - validateSeconds;
      const flops = s.work?.matmulFlops;
      const gflops = flops !== undefined && stepSeconds > 0 ? flops / stepSeconds / 1e9 : undefined;
      return {
        run: s.name,
        steps,
        wallSeconds: s.wall / 1000,
        validateSeconds,
        msPerStep: (1000 * stepSeconds) / steps,
        ...(gflops !== undefined ? { gflops, ...(options.denseGflops ? { ofLimit: gflops / options.denseGflops } : {}) } : {}),
      };
    });
  // buckets at least a second wide (the sampler's tick), so each holds a sample
  const buckets = Math.max(1, Math.min(options.buckets ?? 10, Math.floor(wallSeconds)));
  const width = wallSeconds / buckets;
  const timeline = Array.from({ length: buckets }, (_, b) => {
    const from = first + b * width * 1000;
    const inside = samples.filter((s) => s.time > from && s.time <= from + width * 1000);
    const machine = inside.map((s) => s.machineCores).filter((x): x is number => x !== undefined);
    return { fromSeconds: b * width, process: mean(inside.map((s) => s.processCores)), ...(machine.length ? { machine: mean(machine) } : {}) };
  });
  const machine = samples.map((s) => s.machineCores).filter((x): x is number => x !== undefined);
  return {
    wallSeconds,
    stages,
    training,
    cores: {
      process: mean(samples.map((s) => s.processCores)),
      ...(machine.length ? { machine: mean(machine) } : {}),
      available: options.cores,
      // a sample in which this process kept fewer than all but one core's worth busy: a core idle
      oneIdleShare: samples.length ? samples.filter((s) => s.processCores < options.cores - 0.5).length / samples.length : NaN,
      timeline,
    },
    ...(options.denseGflops !== undefined ? { denseGflops: options.denseGflops } : {}),
  };
}

const f1 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(1));
const f2 = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(2));
const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '—' : `${Math.round(100 * x)}%`);

function markdownTable(header: string[], rows: string[][]): string {
  const align = header.map((_, c) => (c === 0 ? '---' : '---:'));
  return [header, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** The summary as Markdown: stages, training runs, cores over time. */
export function profileMarkdown(summary: ProfileSummary): string {
  const stages = markdownTable(
    ['stage', 'spans', 'wall s (sum)', 'wall s (while any ran)', 'share of the run', 'CPU s', 'CPU ÷ wall'],
    summary.stages.map((s) => [
      s.stage,
      String(s.spans),
      f1(s.wallSeconds),
      f1(s.coveredSeconds),
      pct(s.coveredSeconds / summary.wallSeconds),
      f1(s.cpuSeconds),
      f2(s.cpuPerWall),
    ]),
  );
  const limit = summary.denseGflops !== undefined ? `one thread's dense products: ${f1(summary.denseGflops)} GFLOP/s` : 'no dense-product rate measured';
  const training = markdownTable(
    ['training run', 'steps', 'wall s', 'of which validation s', 'ms / step', 'product GFLOP/s', 'of the limit'],
    summary.training.map((t) => [t.run, String(t.steps), f1(t.wallSeconds), f1(t.validateSeconds), f1(t.msPerStep), f1(t.gflops), pct(t.ofLimit)]),
  );
  const c = summary.cores;
  const timeline = markdownTable(
    ['from s', ...c.timeline.map((t) => String(Math.round(t.fromSeconds)))],
    [
      ['this process, cores', ...c.timeline.map((t) => f2(t.process))],
      ...(c.machine !== undefined ? [['whole machine, cores', ...c.timeline.map((t) => f2(t.machine))]] : []),
    ],
  );
  return [
    `Whole run: ${f1(summary.wallSeconds)} s. Cores in use, mean: this process ${f2(c.process)} of ${c.available}` +
      (c.machine !== undefined ? `, the whole machine ${f2(c.machine)}` : '') +
      `; a core idle (this process under ${c.available - 0.5}) in ${pct(c.oneIdleShare)} of the seconds.`,
    '',
    stages,
    '',
    summary.training.length > 0
      ? `Training runs (steps trained in this call; the rate counts the transformer captioner's products, ${limit}):\n\n${training}`
      : 'No run trained in this call (every run was found finished and reused).',
    '',
    'Cores in use over time:',
    '',
    timeline,
  ].join('\n');
}
