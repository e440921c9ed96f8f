import { describe, expect, it } from "vitest";
import { CallFailed, Grouped } from "../src/db/grouped.js";

describe("Grouped", () => {
  it("runs a call alone at rest and the calls made while it is in flight together, next", async () => {
    const groups: number[][] = [];
    const grouped = new Grouped<number, number>(async (inputs) => {
      groups.push(inputs);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return inputs.map((n) => n * 10);
    });
    const first = grouped.run(1);
    const rest = [2, 3, 4].map((n) => grouped.run(n));
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
    expect(await grouped.run(5)).toBe(50);
    expect(groups.at(-1)).toEqual([5]);
  });

  it("fails only the calls whose output is a CallFailed, and every call of a group that throws", async () => {
    let throwing = false;
    const grouped = new Grouped<number, number>(async (inputs) => {
      if (throwing) throw new Error("statement failed");
      return inputs.map((n) => (n < 0 ? new CallFailed(new Error(`bad ${n}`)) : n));
    }, 2);
    const settled = await Promise.allSettled([grouped.run(1), grouped.run(-2), grouped.run(3)]);
    expect(settled.map((s) => (s.status === "fulfilled" ? s.value : String(s.reason)))).toEqual([
      1,
      "Error: bad -2",
      3,
    ]);
    throwing = true;
    const failed = await Promise.allSettled([grouped.run(1), grouped.run(2)]);
    expect(failed.every((s) => s.status === "rejected")).toBe(true);
  });
});
