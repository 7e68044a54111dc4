/**
 * Per-host politeness for the downloader: at most `concurrency` requests in flight in all, at
 * most `perHost` to any one host, and a host that answered 429/503 with Retry-After (or failed
 * in a way worth retrying) gets no request before its time. Tasks wait in per-host queues, so a
 * busy or resting host never holds a slot that another host could use.
 */

export interface HostSchedulerOptions {
  /** Requests in flight in this process. */
  concurrency: number;
  /** Requests in flight to one host. */
  perHost: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

interface HostState {
  queue: (() => void)[];
  inFlight: number;
  /** No request starts before this time (ms). */
  notBefore: number;
  timer?: NodeJS.Timeout;
}

export class HostScheduler {
  private readonly hosts = new Map<string, HostState>();
  /** Hosts with queued tasks, in the order they got their turn (round robin). */
  private readonly ready: string[] = [];
  private readonly readySet = new Set<string>();
  private inFlight = 0;
  private readonly now: () => number;

  constructor(readonly options: HostSchedulerOptions) {
    if (!(options.concurrency >= 1) || !(options.perHost >= 1)) throw new Error('concurrency and perHost must be at least 1');
    this.now = options.now ?? Date.now;
  }

  /** The politeness key of a URL: its host (with port), or '' for anything without one. */
  static hostOf(url: string): string {
    try {
      return new URL(url).host;
    } catch {
      return '';
    }
  }

  /** Runs `task` once a slot is free overall and for `host`. */
  run<T>(host: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const state = this.state(host);
      state.queue.push(() => {
        task()
          .then(resolve, reject)
          .finally(() => this.release(host));
      });
      this.markReady(host);
      this.pump();
    });
  }

  /** Keeps every request to `host` waiting until `ms` from now (a Retry-After). */
  rest(host: string, ms: number): void {
    const state = this.state(host);
    state.notBefore = Math.max(state.notBefore, this.now() + ms);
  }

  get active(): number {
    return this.inFlight;
  }

  private state(host: string): HostState {
    let state = this.hosts.get(host);
    if (!state) this.hosts.set(host, (state = { queue: [], inFlight: 0, notBefore: 0 }));
    return state;
  }

  private markReady(host: string): void {
    if (!this.readySet.has(host)) {
      this.readySet.add(host);
      this.ready.push(host);
    }
  }

  private release(host: string): void {
    this.inFlight--;
    const state = this.hosts.get(host)!;
    state.inFlight--;
    if (state.queue.length > 0) this.markReady(host);
    // a resting host keeps its state, so a retry queued after this still waits its turn
    else if (state.inFlight === 0 && state.timer === undefined && state.notBefore <= this.now()) this.hosts.delete(host);
    this.pump();
  }

  private pump(): void {
    // each turn either starts a request or takes a host off the ready list, so this ends
    while (this.inFlight < this.options.concurrency && this.ready.length > 0) {
      const host = this.ready.shift()!;
      const state = this.hosts.get(host)!;
      if (state.queue.length === 0) {
        this.readySet.delete(host);
        continue;
      }
      const wait = state.notBefore - this.now();
      if (wait > 0) {
        // resting: off the ready list until its time comes
        this.readySet.delete(host);
        if (state.timer === undefined)
          state.timer = setTimeout(() => {
            state.timer = undefined;
            this.markReady(host);
            this.pump();
          }, wait);
        continue;
      }
      if (state.inFlight >= this.options.perHost) {
        // full: stays ready, tried again when one of its requests ends
        this.readySet.delete(host);
        continue;
      }
      this.inFlight++;
      state.inFlight++;
      const start = state.queue.shift()!;
      if (state.queue.length > 0) this.ready.push(host);
      else this.readySet.delete(host);
      start();
    }
  }
}
