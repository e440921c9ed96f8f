import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { violationsOf } from "@voiceops/platform";
import { failureOf, handlerTestbed, type HandlerTestbed } from "@voiceops/platform/testing";
import {
  JobsService,
  ServiceRequestPriority,
  ServiceRequestStatus,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { jobsService } from "../src/index.js";

// The fast level: the jobs handlers behind their interceptors, called as a direct gRPC caller
// would (no gateway): the proto's declared defaults and the descriptor-driven column values.

describe("jobs handlers", () => {
  let bed: HandlerTestbed;

  beforeAll(async () => {
    bed = await handlerTestbed(jobsService);
  });
  afterAll(async () => {
    await bed?.close();
  });

  it("gives a direct caller the declared defaults of a create and of a list, and keeps explicit values", async () => {
    const jobs = bed.client(JobsService, { orgId: randomUUID() });
    const { serviceRequest } = await jobs.createServiceRequest({ description: "  Leaking tap  ", address: "   " });
    expect(serviceRequest).toMatchObject({
      description: "Leaking tap",
      priority: ServiceRequestPriority.MEDIUM,
      status: ServiceRequestStatus.NEW,
    });
    expect(serviceRequest?.address).toBeUndefined();
    const explicit = await jobs.createServiceRequest({
      description: "Burst pipe",
      priority: ServiceRequestPriority.HIGH,
      status: ServiceRequestStatus.SCHEDULED,
    });
    expect(explicit.serviceRequest).toMatchObject({
      priority: ServiceRequestPriority.HIGH,
      status: ServiceRequestStatus.SCHEDULED,
    });
    const list = await jobs.listServiceRequests({});
    expect(list).toMatchObject({ page: 1, pageSize: 10, total: 2 });
    expect((await jobs.listServiceRequests({ pageSize: 1 })).pageSize).toBe(1);
  });

  it("does not default a partial update: a field left out, or named without a value when it cannot be null, keeps its value", async () => {
    const jobs = bed.client(JobsService, { orgId: randomUUID() });
    const { serviceRequest } = await jobs.createServiceRequest({
      description: "Boiler",
      priority: ServiceRequestPriority.LOW,
      category: "heating",
    });
    const id = serviceRequest?.id ?? "";
    const updated = await jobs.updateServiceRequest({
      serviceRequestId: id,
      serviceRequest: { description: "Boiler service" },
    });
    expect(updated.serviceRequest).toMatchObject({
      description: "Boiler service",
      priority: ServiceRequestPriority.LOW,
      category: "heating",
    });
    const masked = await jobs.updateServiceRequest({
      serviceRequestId: id,
      serviceRequest: {},
      updateMask: { paths: ["priority", "status", "category"] },
    });
    expect(masked.serviceRequest).toMatchObject({
      priority: ServiceRequestPriority.LOW,
      status: ServiceRequestStatus.NEW,
    });
    expect(masked.serviceRequest?.category).toBeUndefined();
  });

  it("stores a listing with its declared flags, clears what an update names without a value, and refuses to clear the name", async () => {
    const jobs = bed.client(JobsService, { orgId: randomUUID() });
    const { listing } = await jobs.createServiceListing({
      name: " Drain cleaning ",
      priceCents: 9_900n,
      category: " plumbing ",
    });
    expect(listing).toMatchObject({
      name: "Drain cleaning",
      priceCents: 9_900n,
      category: "plumbing",
      isAvailable: true,
      isActive: true,
    });
    const hidden = await jobs.createServiceListing({ name: "Hidden", isActive: false });
    expect(hidden.listing).toMatchObject({ isAvailable: true, isActive: false });
    expect(await jobs.listServiceListings({})).toMatchObject({ page: 1, pageSize: 50, total: 2 });

    const id = listing?.id ?? "";
    const cleared = await jobs.updateServiceListing({
      listingId: id,
      listing: {},
      updateMask: { paths: ["price_cents", "is_available"] },
    });
    expect(cleared.listing?.priceCents).toBeUndefined();
    expect(cleared.listing?.isAvailable).toBe(true);
    const error = await failureOf(
      jobs.updateServiceListing({ listingId: id, listing: {}, updateMask: { paths: ["name"] } }),
    );
    expect(violationsOf(error)).toEqual([expect.objectContaining({ field: "listing.name", rule: "type" })]);
  });
});
