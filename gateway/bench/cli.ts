/** A benchmark's `--name value` options. */
export function parseArgs(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg.startsWith("--")) out[arg.slice(2)] = args[++i] ?? "";
  }
  return out;
}

/** The median of some measurements (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Runs `jobs` with at most `width` at a time. */
export async function inBatches<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const index = next++;
        results[index] = await (jobs[index] as () => Promise<T>)();
      }
    }),
  );
  return results;
}
