/**
 * The options every experiment's run takes: where the world data, pools and runs go, the visual features, how many
 * variants train at once, and where its status lines, log records and progress are reported.
 */
import type { LogLine } from '../runs/layout';
import type { FeatureSpec } from './visual';

export interface ExperimentOptions {
  /** Where world data and filtered pools go (default `.cckit-cache`). */
  cacheDir?: string;
  /** Runs root (default `runs`). */
  runsRoot?: string;
  /** Visual features (default: the recipe's, cached under `cacheDir`). */
  features?: FeatureSpec;
  /** Variants trained at once, each in its own worker thread (default 2: one per core here; 1 = in this thread). */
  concurrency?: number;
  /** Status lines ("pre-training on cc12m…"). */
  say?: (line: string) => void;
  onLog?: (run: string, line: LogLine) => void;
  progress?: (task: string, done: number, total: number) => void;
  force?: boolean;
}
