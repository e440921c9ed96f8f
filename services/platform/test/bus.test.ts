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
    await expect(bus.publish({ subject: "crm.contact.created", id: "1", data: new Uint8Array() })).rejects.toThrow("consumer down");
    down = false;
    await bus.publish({ subject: "crm.contact.created", id: "1", data: new Uint8Array() });
    await bus.publish({ subject: "jobs.service_request.created", id: "2", data: new Uint8Array() });
    expect(seen).toEqual(["1"]);
    await bus.close();
    await expect(bus.publish({ subject: "crm.contact.created", id: "3", data: new Uint8Array() })).rejects.toThrow();
  });
});
