/**
 * The audit of a kept set (OUT/kept.tsv), written as OUT/audit.json and printed at the end of every
 * filter run: what a reader checks before trusting a filtered pool. The funnel says how many rows
 * each rule removed; it cannot say that 80% of what is left is one caption ("Stock Photo"), or
 * that the kept set is full of `<PERSON>`. The audit shows:
 *
 *   - the most repeated captions, with their count and share of the kept rows (top 10);
 *   - a deterministic sample of kept rows (the 10 with the smallest hash of url + caption, so the
 *     same kept set gives the same sample on every run and machine);
 *   - the share of kept captions with `<PERSON>` (CC12M's person placeholder);
 *   - a one-line warning when one caption is more than 10% of the kept rows.
 *
 * It never changes what is kept. Memory is bounded for any kept set: captions are counted with
 * Misra–Gries' frequent-items summary (at most AUDIT_COUNTERS captions held); when the kept set
 * has more distinct captions than that, a second pass over kept.tsv counts the remaining
 * candidates exactly. Every caption repeated more than kept / (AUDIT_COUNTERS + 1) times is found
 * and its count is exact; below that (e.g. 183 rows of 12M) a repeated caption may be missed.
 */
import { createHash } from 'crypto';
import { readTsv, isReject, type TsvLayout } from '../data/tsv';
import { PERSON_TOKEN } from '../text/tokens';
import { quoteInput } from '../util/untrusted-text';

/** Above this share of the kept rows, one caption gets a warning (cckit's audit, not a paper threshold). */
export const AUDIT_REPEAT_WARNING = 0.1;
/** Repeated captions listed. */
export const AUDIT_TOP = 10;
/** Kept rows sampled. */
export const AUDIT_SAMPLE = 10;
/** Captions the frequent-items summary holds at once. */
export const AUDIT_COUNTERS = 65_536;

export interface RepeatedCaption {
  caption: string;
  count: number;
  /** count / kept rows. */
  share: number;
}

export interface KeptAudit {
  /** Kept rows read from kept.tsv. */
  kept: number;
  /** Distinct captions, when the kept set had no more than AUDIT_COUNTERS of them (else null). */
  distinctCaptions: number | null;
  /** Captions kept more than once, most repeated first (at most AUDIT_TOP). */
  repeated: RepeatedCaption[];
  /** AUDIT_SAMPLE kept rows chosen by hash (deterministic), in kept.tsv order. */
  sample: { url: string; caption: string }[];
  /** Kept captions that contain `<PERSON>`. */
  person: { count: number; share: number };
  /** Set when one caption is more than AUDIT_REPEAT_WARNING of the kept rows. */
  warning?: string;
}

async function* keptRows(file: string, layout: TsvLayout): AsyncGenerator<{ url: string; caption: string }> {
  for await (const row of readTsv(file, { layout, malformed: 'reject' })) if (!isReject(row)) yield row;
}

/** 52 bits of the row's SHA-1: a stable order for the sample. */
function rowHash(url: string, caption: string): number {
  return parseInt(createHash('sha1').update(`${url}\t${caption}`).digest('hex').slice(0, 13), 16);
}

/** Reads kept.tsv (once, or twice for a kept set with very many distinct captions) and audits it. */
export async function auditKeptFile(file: string, layout: TsvLayout, counters = AUDIT_COUNTERS): Promise<KeptAudit> {
  const counts = new Map<string, number>();
  let overflowed = false;
  let kept = 0;
  let person = 0;
  const sample: { hash: number; index: number; url: string; caption: string }[] = [];
  for await (const { url, caption } of keptRows(file, layout)) {
    const index = kept++;
    if (caption.includes(PERSON_TOKEN)) person++;
    const hash = rowHash(url, caption);
    if (sample.length < AUDIT_SAMPLE || hash < sample[sample.length - 1].hash) {
      sample.push({ hash, index, url, caption });
      sample.sort((a, b) => a.hash - b.hash || a.index - b.index);
      if (sample.length > AUDIT_SAMPLE) sample.pop();
    }
    const seen = counts.get(caption);
    if (seen !== undefined) counts.set(caption, seen + 1);
    else if (counts.size < counters) counts.set(caption, 1);
    else {
      // Misra–Gries: a new caption with every counter taken lowers them all by one
      overflowed = true;
      for (const [c, n] of counts) {
        if (n <= 1) counts.delete(c);
        else counts.set(c, n - 1);
      }
    }
  }
  if (overflowed) {
    // the summary's survivors are the candidates; their exact counts from a second pass
    for (const c of counts.keys()) counts.set(c, 0);
    for await (const { caption } of keptRows(file, layout)) {
      const n = counts.get(caption);
      if (n !== undefined) counts.set(caption, n + 1);
    }
  }
  const repeated = [...counts]
    .filter(([, n]) => n >= 2)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, AUDIT_TOP)
    .map(([caption, count]) => ({ caption, count, share: count / kept }));
  const audit: KeptAudit = {
    kept,
    distinctCaptions: overflowed ? null : counts.size,
    repeated,
    sample: sample.sort((a, b) => a.index - b.index).map(({ url, caption }) => ({ url, caption })),
    person: { count: person, share: kept === 0 ? 0 : person / kept },
  };
  const top = repeated[0];
  if (top && top.share > AUDIT_REPEAT_WARNING)
    audit.warning = `${count(top.count)} of ${count(kept)} kept rows (${percent(top.share)}) are one caption: "${quoteInput(top.caption, 120)}"`;
  return audit;
}

const count = (n: number): string => n.toLocaleString('en');
const percent = (share: number): string => `${(100 * share).toFixed(share >= 0.1 ? 0 : 1)}%`;

/** The audit as printed lines (`file`: where audit.json was written). */
export function formatAudit(audit: KeptAudit, file: string): string[] {
  const lines: string[] = [];
  const distinct = audit.distinctCaptions === null ? 'more than ' + count(AUDIT_COUNTERS) : count(audit.distinctCaptions);
  lines.push(
    `kept-set audit (${file}): ${count(audit.kept)} kept rows, ${distinct} distinct captions; with ${PERSON_TOKEN}: ${count(audit.person.count)} (${percent(audit.person.share)})`,
  );
  if (audit.warning) lines.push(`warning: ${audit.warning}`);
  if (audit.repeated.length === 0) lines.push('most repeated captions: none (every kept caption is unique)');
  else {
    lines.push('most repeated captions:');
    for (const r of audit.repeated) lines.push(`  ${String(r.count).padStart(7)}  ${percent(r.share).padStart(6)}  ${quoteInput(r.caption, 120)}`);
  }
  if (audit.sample.length > 0) {
    lines.push(`sample of kept captions (${audit.sample.length}, by hash):`);
    for (const s of audit.sample) lines.push(`  ${quoteInput(s.caption, 120)}`);
  }
  return lines;
}
