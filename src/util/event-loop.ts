/** Lets the event loop run (signals, timers) between batches, even where every read resolves without I/O. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Every `every` calls, lets the event loop run: a long synchronous loop made interruptible (Ctrl-C, SIGTERM). */
export function eventLoopTurns(every: number): () => Promise<void> | undefined {
  let calls = 0;
  return () => (++calls % every === 0 ? yieldToEventLoop() : undefined);
}
