/**
 * Progress of long work: a bar on an interactive terminal (cli-progress), otherwise a line per
 * tenth, so logs of CI runs and notebooks stay short. Library code reports through the
 * `Progress` callback shape and never prints by itself.
 */
import { SingleBar } from 'cli-progress';

/** Called as work advances: `done` of `total` items of the named task. */
export type Progress = (task: string, done: number, total: number) => void;

export const silentProgress: Progress = () => {};

/** A Progress that draws on stderr. Call `.stop()` when the work ends. */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress & { stop(): void } {
  let bar: SingleBar | undefined;
  let current = '';
  let lastTenth = -1;
  const report = ((task: string, done: number, total: number) => {
    if (stream.isTTY) {
      if (task !== current) {
        bar?.stop();
        bar = new SingleBar({ format: `${task.padEnd(14)} [{bar}] {percentage}% {value}/{total} {eta_formatted} left`, stream, hideCursor: true });
        bar.start(total, done);
        current = task;
      } else bar?.update(done);
      return;
    }
    if (task !== current) {
      current = task;
      lastTenth = -1;
    }
    const tenth = total === 0 ? 10 : Math.floor((10 * done) / total);
    if (tenth !== lastTenth && (tenth === 10 || tenth > lastTenth)) {
      lastTenth = tenth;
      stream.write(`${task}: ${done}/${total}\n`);
    }
  }) as Progress & { stop(): void };
  report.stop = () => bar?.stop();
  return report;
}
