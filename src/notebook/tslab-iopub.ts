/**
 * A guard for Jupyter's tslab kernel, which dies under long notebooks without it.
 *
 * tslab sends every iopub message (status, streams, display data) with `socket.send(...)` and never awaits
 * the promise. zeromq 6 completes a send synchronously only 512 times in a row; the next one is deferred
 * to a later event-loop turn, and any other send on that socket before then throws EBUSY ("Socket is busy
 * writing; only one send operation may be in progress at any time") as an uncaught exception, which kills
 * the kernel. So a notebook that emits more than ~512 outputs (progress updates, log lines) crashes as
 * soon as one of those deferred sends is followed by another in the same turn — for instance tslab's own
 * "busy" status and execute_input at the start of the next cell.
 *
 * The guard wraps `send` of zeromq's Publisher (the iopub socket type) as loaded by the kernel: a send that
 * finds the socket busy is queued behind the pending one instead of throwing, and later sends queue behind
 * it until the queue drains, so messages keep their order. It touches nothing outside a tslab kernel.
 */

const GUARD = Symbol.for('cckit.tslab.iopubGuard');

interface SendState {
  last?: Promise<unknown>;
  queue?: Promise<unknown>;
}

type Send = (this: object, message: unknown) => Promise<unknown>;

/** Installs the guard once per process, if a tslab kernel with zeromq's Publisher is loaded. Returns whether it is installed. */
export function guardTslabIopub(cache: NodeJS.Require['cache'] | undefined = typeof require !== 'undefined' ? require.cache : undefined): boolean {
  if (!cache) return false;
  const files = Object.keys(cache);
  if (!files.some((f) => /[\\/]tslab[\\/]dist[\\/]jupyter\.js$/.test(f))) return false;
  let installed = false;
  for (const file of files) {
    if (!/[\\/]zeromq[\\/]lib[\\/]index\.js$/.test(file)) continue;
    const Publisher = (cache[file]?.exports as { Publisher?: { prototype: Record<string | symbol, unknown> } } | undefined)?.Publisher;
    if (!Publisher) continue;
    const proto = Publisher.prototype;
    if (proto[GUARD]) {
      installed = true;
      continue;
    }
    const original = proto.send as Send | undefined;
    if (typeof original !== 'function') continue;
    const states = new WeakMap<object, SendState>();
    const settle = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        () => undefined,
      );
    const guarded: Send = function (this: object, message: unknown) {
      let state = states.get(this);
      if (!state) states.set(this, (state = {}));
      const s = state;
      const enqueue = (after: Promise<unknown>): Promise<unknown> => {
        const p = settle(after).then(() => original.call(this, message));
        s.queue = p;
        void settle(p).then(() => {
          if (s.queue === p) s.queue = undefined;
        });
        s.last = p;
        return p;
      };
      if (s.queue) return enqueue(s.queue);
      try {
        const p = original.call(this, message);
        s.last = p;
        void settle(p);
        return p;
      } catch (e) {
        if ((e as { code?: string }).code !== 'EBUSY' || !s.last) throw e;
        return enqueue(s.last);
      }
    };
    Object.defineProperty(proto, 'send', { value: guarded, writable: true, configurable: true });
    Object.defineProperty(proto, GUARD, { value: true });
    installed = true;
  }
  return installed;
}
