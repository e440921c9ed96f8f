import { readFileSync, writeFileSync } from "node:fs";

// The resident memory of a running process and of its children, watched while a test runs, for
// tests that hold a process to a memory bound (hostile documents, huge uploads).

interface MemoryPeaks {
  /** The process's resident memory when watching started, in bytes. */
  baseline: number;
  /** The most it had while watched (the kernel's high-water mark, reset when watching started). */
  peak: number;
  /** The most any one of its child processes had while watched. */
  childPeak: number;
}

function statusField(pid: number, field: string): number | undefined {
  try {
    const kb = new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(readFileSync(`/proc/${pid}/status`, "latin1"))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether this machine shows process memory the way watchMemory reads it (Linux's /proc). */
export function canWatchMemory(pid: number): boolean {
  return statusField(pid, "VmRSS") !== undefined;
}

/** Starts watching a process's resident memory (every 20 ms, and its kernel high-water mark); stop() answers the peaks. */
export function watchMemory(pid: number): { stop(): MemoryPeaks } {
  // Writing 5 resets the high-water mark (VmHWM) to the current size, so it then holds the peak since.
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    // Without it the polled figures below stand alone.
  }
  const baseline = statusField(pid, "VmRSS") ?? 0;
  let peak = baseline;
  let childPeak = 0;
  const sample = () => {
    peak = Math.max(peak, statusField(pid, "VmRSS") ?? 0);
    for (const child of childrenOf(pid)) childPeak = Math.max(childPeak, statusField(child, "VmHWM") ?? 0);
  };
  const timer = setInterval(sample, 20);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { baseline, peak: Math.max(peak, statusField(pid, "VmHWM") ?? 0), childPeak };
    },
  };
}
