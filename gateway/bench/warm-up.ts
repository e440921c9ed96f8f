/** Warm-up runs a system gets at most before it is measured, and how long each lasts. */
export const WARM_UP_RUNS = 6;
export const WARM_UP_SECONDS = 2;

/**
 * Drives a system (`run`, one WARM_UP_SECONDS run) until its throughput stops rising (a run
 * within 5% of the one before, or lower), at most WARM_UP_RUNS times, and says how many runs it
 * took: on a slow core V8's optimizing compiler, which shares that core with the load, takes
 * longer than one short run to reach the steady state, and two processes (gateway and service)
 * take longer than one.
 */
export async function warmUp(run: () => Promise<{ rps: number }>): Promise<number> {
  let previous = 0;
  for (let count = 1; ; count++) {
    const { rps } = await run();
    if (count === WARM_UP_RUNS || (count > 1 && rps < previous * 1.05)) return count;
    previous = rps;
  }
}
