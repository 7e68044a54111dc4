/**
 * The one job pool of the experiments: `concurrency` lanes take the next job until none is left (on a 2-core
 * machine, two runs train side by side, each in its own worker thread). The callers choose the order
 * (the longest jobs first, so that the lanes finish together); the results come back in the jobs' order.
 */

/**
 * Runs `runOne` over `jobs`, at most `concurrency` at a time (at least one lane), and gives the results in the
 * jobs' order. After a job fails no lane starts another; the first failure is thrown once the running jobs end.
 */
export async function runJobs<J, R>(jobs: readonly J[], concurrency: number, runOne: (job: J, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(jobs.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (!failure && next < jobs.length) {
      const i = next++;
      try {
        results[i] = await runOne(jobs[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  // the other lanes end the jobs they hold first: nothing still runs once this returns
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, jobs.length)) }, lane));
  if (failure) throw failure.error;
  return results;
}
