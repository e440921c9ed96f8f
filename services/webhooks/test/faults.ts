import { expect } from "vitest";
import type { ApiClient } from "@voiceops/platform/testing";
import type { Received } from "./receiver.js";

// What the fault tests of webhook delivery share: a burst of events made through the REST API
// and the checks on what a receiver got (the service as a process: webhooks-process.ts).

/** Creates contacts `from`..`to`-1 in parallel batches, each a contact.created event; resolves their ids. */
export async function contactBurst(api: ApiClient, tag: string, from: number, to: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = from; i < to; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, to - i) }, (_x, k) => api.post("/api/contacts", { name: `${tag} ${i + k}` })),
    );
    for (const response of batch) {
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      ids.push(response.body.id);
    }
  }
  return ids;
}

/** The contact ids the requests carried (the data of contact.created). */
export function contactIds(requests: Received[]): Set<string> {
  return new Set(requests.map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id));
}

/**
 * Pairs of requests of one event (one webhook-id) that were in flight at the same time: what two
 * workers sending the same attempt at once would make. Each pair is shown as its webhook-id.
 */
export function overlappingAttempts(requests: Received[]): string[] {
  const byId = new Map<string, Received[]>();
  for (const request of requests) {
    const id = String(request.headers["webhook-id"]);
    byId.set(id, [...(byId.get(id) ?? []), request]);
  }
  const overlapping: string[] = [];
  for (const [id, group] of byId) {
    const sorted = [...group].sort((a, b) => a.arrivedAt - b.arrivedAt);
    // Each request must have been answered before the next of its event arrived.
    sorted.forEach((request, i) => {
      const next = sorted[i + 1];
      if (next && request.answeredAt > next.arrivedAt) overlapping.push(id);
    });
  }
  return overlapping;
}
