import { afterAll, describe, expect, inject, it } from "vitest";
import {
  AppointmentAction,
  AppointmentStatus,
  FieldopsService,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { AdminClient, grpc, newTenant, orgMetadata, plainGrpcClient } from "@voiceops/platform/testing";

// Scheduling called directly over gRPC: the org context's business hours travel as metadata
// (x-org-business-hours, days mon..sun separated by ";"), the booking's contact is upserted by
// the CRM over gRPC, and roles are enforced as over REST.

const client = plainGrpcClient(inject("serviceUrls").fieldops ?? "");
const token = inject("internalToken");
const admin = new AdminClient(inject("adminUrl"), inject("adminToken"));
const { createAppointmentType, checkAvailability, bookAppointment, manageAppointment, listAppointments } =
  FieldopsService.method;
const EVERY_DAY = Array.from({ length: 7 }, () => "00:00-24:00").join(";");

describe("scheduling over plain gRPC", () => {
  afterAll(() => client.close());

  it("creates a type, finds a slot, books it for a new contact and cancels it", async () => {
    const tenant = await newTenant(inject("baseUrl"), admin);
    const meta = { ...orgMetadata(tenant.orgId, token), "x-org-business-hours": EVERY_DAY };
    const created = await client.call(createAppointmentType, { name: "Grpc visit", durationMinutes: 30 }, meta);
    const typeId = created.appointmentType?.id ?? "";
    expect(created.appointmentType).toMatchObject({ slotIntervalMinutes: 30, minNoticeMinutes: 60, isActive: true });
    const found = await client.call(checkAvailability, { appointmentTypeId: typeId }, meta);
    expect(found.slots.length).toBeGreaterThan(0);
    // Not the first slot: the minimum notice may pass it by while the test runs.
    const slot = found.slots[1];
    const booked = await client.call(
      bookAppointment,
      {
        appointmentTypeId: typeId,
        start: { seconds: BigInt(Date.parse(slot?.start ?? "") / 1000) },
        contact: { name: "Grpc Caller", phoneNumber: "555-010-7000" },
      },
      meta,
    );
    expect(booked.appointment).toMatchObject({
      status: AppointmentStatus.SCHEDULED,
      contact: { name: "Grpc Caller", phoneNumber: "+15550107000" },
    });
    const rest = await tenant.owner.get(`/api/contacts/${booked.appointment?.contactId}`);
    expect(rest.body).toMatchObject({ name: "Grpc Caller" });
    const cancelled = await client.call(
      manageAppointment,
      { appointmentId: booked.appointment?.id ?? "", action: AppointmentAction.CANCEL, reason: "test" },
      meta,
    );
    expect(cancelled.appointment).toMatchObject({ status: AppointmentStatus.CANCELLED, cancelReason: "test" });
    expect((await client.call(listAppointments, {}, meta)).total).toBe(1);
  });

  it("refuses a member creating a type, and a slot taken twice", async () => {
    const tenant = await newTenant(inject("baseUrl"), admin);
    const meta = { ...orgMetadata(tenant.orgId, token), "x-org-business-hours": EVERY_DAY };
    await expect(
      client.call(createAppointmentType, { name: "No", durationMinutes: 30 }, { ...meta, "x-role": "member" }),
    ).rejects.toMatchObject({
      code: grpc.status.PERMISSION_DENIED,
    });
    const created = await client.call(createAppointmentType, { name: "Once", durationMinutes: 30 }, meta);
    const slot = (await client.call(checkAvailability, { appointmentTypeId: created.appointmentType?.id ?? "" }, meta))
      .slots[1];
    const request = {
      appointmentTypeId: created.appointmentType?.id ?? "",
      start: { seconds: BigInt(Date.parse(slot?.start ?? "") / 1000) },
      contact: { name: "Twice" },
    };
    await client.call(bookAppointment, request, meta);
    await expect(client.call(bookAppointment, request, meta)).rejects.toMatchObject({
      code: grpc.status.ALREADY_EXISTS,
    });
  });
});
