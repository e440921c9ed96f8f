import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRefusedAddress, urlProblem } from "../src/delivery/address-check.js";
import { deliveryAgent, sendAttempt } from "../src/delivery/sender.js";
import { Receiver } from "./receiver.js";

// The address policy where it matters: at connection time. A name that resolves to a refused
// address is never contacted, whatever it resolved to when the endpoint was saved.

describe("the delivery address policy", () => {
  const receiver = new Receiver();
  beforeAll(async () => {
    await receiver.start();
  });
  afterAll(() => receiver.stop());

  it("refuses link-local and unspecified addresses always, loopback and private ones unless allowed", () => {
    for (const address of ["169.254.169.254", "0.0.0.0", "::", "fe80::1", "::ffff:169.254.1.1"]) {
      expect(isRefusedAddress(address, true)).toBe(true);
      expect(isRefusedAddress(address, false)).toBe(true);
    }
    for (const address of ["127.0.0.1", "10.1.2.3", "192.168.1.1", "::1", "fd00::1"]) {
      expect(isRefusedAddress(address, true)).toBe(false);
      expect(isRefusedAddress(address, false)).toBe(true);
    }
    expect(isRefusedAddress("93.184.216.34", false)).toBe(false);
    expect(urlProblem("http://localhost:8080/x", false)).toBeDefined();
    expect(urlProblem("http://localhost:8080/x", true)).toBeUndefined();
    expect(urlProblem("http://user:pw@example.com/x", true)).toBeDefined();
  });

  it("does not connect to a name that resolves to a refused address", async () => {
    const agent = deliveryAgent(false);
    try {
      // "localhost" resolves to loopback, where the receiver listens.
      const url = receiver.url("/rebound").replace("127.0.0.1", "localhost");
      const outcome = await sendAttempt(agent, url, {}, "{}");
      expect(outcome.status).toBeNull();
      expect(outcome.error).toBe("the endpoint's address is not allowed");
      expect(receiver.received).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it("connects to the same name when private addresses are allowed, and follows no redirect", async () => {
    receiver.answer = () => ({ status: 302, headers: { location: "http://169.254.169.254/" } });
    const agent = deliveryAgent(true);
    try {
      const outcome = await sendAttempt(agent, receiver.url("/redirect").replace("127.0.0.1", "localhost"), {}, "{}");
      expect(outcome.status).toBe(302);
      expect(receiver.received.map((r) => r.path)).toEqual(["/redirect"]);
    } finally {
      await agent.close();
    }
  });
});
