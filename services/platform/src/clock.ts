/**
 * The one source of "now" for scheduling, calling windows, retries, leases and statistics.
 * Services read it from their context, so a test can run a system on a clock it moves across
 * a calling window or a daylight-saving change in seconds.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until moved: for tests that cross time boundaries on purpose. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(instant: Date | string): void {
    this.current = new Date(instant).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
