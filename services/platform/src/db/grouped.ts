/** An output of Grouped's `runAll` that fails its one call (the others of its group go on). */
export class CallFailed {
  constructor(readonly error: unknown) {}
}

/**
 * Runs a statement for many callers at once (group commit): a call made while none is in flight
 * runs at once, alone; the calls made while one is in flight wait for it and then run together,
 * as one statement for all of them. Under load each round trip to the database serves many
 * callers; at rest nothing waits.
 */
export class Grouped<I, O> {
  private waiting: { input: I; resolve: (output: O) => void; reject: (error: unknown) => void }[] = [];
  private running = false;

  /** `runAll` answers each input's output (or CallFailed), by position; `limit` caps a group. */
  constructor(
    private readonly runAll: (inputs: I[]) => Promise<(O | CallFailed)[]>,
    private readonly limit = 256,
  ) {}

  run(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length > 0) {
      const group = this.waiting.splice(0, this.limit);
      try {
        const outputs = await this.runAll(group.map((call) => call.input));
        group.forEach((call, i) => {
          const output = outputs[i];
          if (output instanceof CallFailed) call.reject(output.error);
          else call.resolve(output as O);
        });
      } catch (error) {
        for (const call of group) call.reject(error);
      }
    }
    this.running = false;
  }
}

/** Each call's output of `run`, or its failure as CallFailed. */
export async function eachSettled<I, O>(inputs: I[], run: (input: I) => Promise<O>): Promise<(O | CallFailed)[]> {
  const outputs: (O | CallFailed)[] = [];
  for (const input of inputs) outputs.push(await run(input).catch((error: unknown) => new CallFailed(error)));
  return outputs;
}
