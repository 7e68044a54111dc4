import { evaluate, evaluateByDomain, Evaluation, CaptionCase } from '../metrics/evaluate';
import { loadCocoResults, loadScoringFile } from '../metrics/inputs';

export interface ScoreFlags {
  input?: string;
  results?: string;
  annotations?: string;
  tokenized: boolean;
  metrics: string;
  byDomain: boolean;
  pretty: boolean;
}

export function loadCases(flags: Pick<ScoreFlags, 'input' | 'results' | 'annotations'>): CaptionCase[] {
  if (flags.input && (flags.results || flags.annotations)) throw new Error('give either --input or --results with --annotations, not both');
  if (flags.input) return loadScoringFile(flags.input);
  if (flags.results && flags.annotations) {
    const { cases, unpredicted } = loadCocoResults(flags.results, flags.annotations);
    if (unpredicted.length > 0) {
      process.stderr.write(`cckit: ${unpredicted.length} annotated image(s) have no prediction and are not scored (first: ${unpredicted[0]})\n`);
    }
    return cases;
  }
  throw new Error('nothing to score: give --input FILE, or --results FILE with --annotations FILE');
}

export function runScore(flags: ScoreFlags): void {
  const cases = loadCases(flags);
  const options = { tokenized: flags.tokenized, metrics: flags.metrics.split(',').filter((m) => m.trim() !== '') };
  let output: Evaluation & { domains?: Record<string, Evaluation['corpus']> };
  if (flags.byDomain) {
    const byDomain = evaluateByDomain(cases, options);
    output = { ...byDomain.entire, domains: Object.fromEntries(Object.entries(byDomain).map(([d, e]) => [d, e.corpus])) };
  } else {
    output = evaluate(cases, options);
  }
  process.stdout.write(JSON.stringify(output, null, flags.pretty ? 2 : undefined) + '\n');
}
