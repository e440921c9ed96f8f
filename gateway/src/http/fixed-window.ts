/** One key's count in its current window. */
interface Window {
  consumed: number;
  endsAt: number;
}

export interface WindowState {
  /** Points taken in the current window, this one included. */
  consumed: number;
  msBeforeNext: number;
}

/**
 * Fixed-window counters in memory, one per key: a key's window starts with its first point and
 * lasts `windowMs`. Synchronous (a Map lookup per request); expired windows are swept once per
 * window length.
 */
export class FixedWindowCounter {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly points: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    // Unreferenced: the counters live as long as their app, and never keep a process alive.
    setInterval(() => this.sweep(), windowMs).unref();
  }

  /** Takes a point; `allowed` is false once the window's points are spent (the point still counts). */
  consume(key: string): WindowState & { allowed: boolean } {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { consumed: 0, endsAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.consumed++;
    return { consumed: window.consumed, msBeforeNext: window.endsAt - now, allowed: window.consumed <= this.points };
  }

  /** Gives a point back to a live window. */
  refund(key: string): void {
    const window = this.windows.get(key);
    if (window && window.endsAt > this.now()) window.consumed--;
  }

  /** The key's current window without taking a point; undefined when it has none. */
  peek(key: string): WindowState | undefined {
    const now = this.now();
    const window = this.windows.get(key);
    return window && window.endsAt > now ? { consumed: window.consumed, msBeforeNext: window.endsAt - now } : undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}
