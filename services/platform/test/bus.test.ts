import { describe, expect, it } from "vitest";
import { streamOf, subjectMatches } from "../src/bus/bus.js";
import { createMemoryBus } from "../src/bus/memory.js";

describe("subjects", () => {
  it("match NATS wildcards", () => {
    expect(subjectMatches("crm.contact.deleted", "crm.contact.deleted")).toBe(true);
    expect(subjectMatches("crm.*.deleted", "crm.lead.deleted")).toBe(true);
    expect(subjectMatches("crm.>", "crm.lead.deleted")).toBe(true);
    expect(subjectMatches("crm.>", "crm")).toBe(false);
    expect(subjectMatches("crm.contact", "crm.contact.deleted")).toBe(false);
    expect(subjectMatches("jobs.>", "crm.contact.deleted")).toBe(false);
  });

  it("name their stream by the first token", () => {
    expect(streamOf("crm.contact.created")).toBe("CRM");
    expect(() => streamOf("Bad Subject")).toThrow();
  });
});

describe("in-process bus", () => {
  it("fails publish while a durable handler fails, so the outbox keeps the event", async () => {
    const bus = createMemoryBus();
    const seen: string[] = [];
    let down = true;
    await bus.subscribe({
      durable: "t",
      subject: "crm.contact.*",
      handler: async (message) => {
        if (down) throw new Error("consumer down");
        seen.push(message.id);
      },
    });
    await expect(bus.publish({ subject: "crm.contact.created", id: "1", data: new Uint8Array() })).rejects.toThrow(
      "consumer down",
    );
    down = false;
    await bus.publish({ subject: "crm.contact.created", id: "1", data: new Uint8Array() });
    await bus.publish({ subject: "jobs.service_request.created", id: "2", data: new Uint8Array() });
    expect(seen).toEqual(["1"]);
    await bus.close();
    await expect(bus.publish({ subject: "crm.contact.created", id: "3", data: new Uint8Array() })).rejects.toThrow();
  });
});

describe("in-process bus, several messages at once", () => {
  const message = (subject: string, id: string) => ({ subject, id, data: new Uint8Array() });

  it("hands each durable its share in order: at once to a batch handler, one by one otherwise", async () => {
    const bus = createMemoryBus();
    const batches: string[][] = [];
    const single: string[] = [];
    await bus.subscribe({
      durable: "b",
      subject: "crm.>",
      handler: async () => expect.unreachable(),
      batchHandler: async (messages) => void batches.push(messages.map((m) => m.id)),
    });
    await bus.subscribe({ durable: "s", subject: "crm.contact.*", handler: async (m) => void single.push(m.id) });
    await bus.publishAll?.([
      message("crm.contact.created", "1"),
      message("jobs.service_request.created", "2"),
      message("crm.lead.created", "3"),
      message("crm.contact.updated", "4"),
    ]);
    expect(batches).toEqual([["1", "3", "4"]]);
    expect(single).toEqual(["1", "4"]);
    await bus.close();
  });

  it("fails while a handler fails", async () => {
    const bus = createMemoryBus();
    await bus.subscribe({
      durable: "b",
      subject: "crm.>",
      handler: async () => undefined,
      batchHandler: async () => Promise.reject(new Error("consumer down")),
    });
    await expect(bus.publishAll?.([message("crm.contact.created", "1")])).rejects.toThrow("consumer down");
    await bus.close();
  });
});
