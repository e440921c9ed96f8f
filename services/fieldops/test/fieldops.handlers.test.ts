import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { errorReason, violationsOf } from "@voiceops/platform";
import { failureOf, handlerTestbed, type HandlerTestbed } from "@voiceops/platform/testing";
import {
  FieldopsService,
  ServiceProviderStatus,
  UrgentAlertResolutionStatus,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { fieldopsErrors } from "../src/errors.js";
import { fieldopsService } from "../src/index.js";

// The fast level: the fieldops handlers behind their interceptors, called as a direct gRPC
// caller would (no gateway): declared defaults, phone numbers read with the organization's
// country, and updates that change only what they name.

describe("fieldops handlers", () => {
  let bed: HandlerTestbed;

  beforeAll(async () => {
    bed = await handlerTestbed(fieldopsService);
  });
  afterAll(async () => {
    await bed?.close();
  });

  it("stores a provider with its declared defaults, its phone in E.164 with the organization's country, and distinct skills", async () => {
    const fieldops = bed.client(FieldopsService, { orgId: randomUUID(), country: "GB" });
    const { provider } = await fieldops.createServiceProvider({
      name: " Sam ",
      phoneNumber: "020 7946 0018",
      skills: [" gas", "gas", " "],
    });
    expect(provider).toMatchObject({
      name: "Sam",
      phoneNumber: "+442079460018",
      skills: ["gas"],
      status: ServiceProviderStatus.ACTIVE,
      isOnCall: false,
    });
    const { technician } = await fieldops.createTechnician({
      name: "Kim",
      status: ServiceProviderStatus.SUSPENDED,
      isOnCall: true,
    });
    expect(technician).toMatchObject({ status: ServiceProviderStatus.SUSPENDED, isOnCall: true });
    expect(await fieldops.listServiceProviders({})).toMatchObject({ page: 1, pageSize: 10, total: 2 });

    const error = await failureOf(fieldops.createServiceProvider({ name: "Lee", phoneNumber: "12" }));
    expect(violationsOf(error)).toEqual([expect.objectContaining({ field: "phone_number", rule: "format" })]);
  });

  it("updates only what a provider update names, and refuses to clear the name", async () => {
    const fieldops = bed.client(FieldopsService, { orgId: randomUUID() });
    const { provider } = await fieldops.createServiceProvider({ name: "Ana", specialty: "hvac", isOnCall: true });
    const id = provider?.id ?? "";
    const updated = await fieldops.updateServiceProvider({
      providerId: id,
      provider: {},
      updateMask: { paths: ["specialty", "is_on_call", "status"] },
    });
    expect(updated.provider).toMatchObject({ name: "Ana", isOnCall: true, status: ServiceProviderStatus.ACTIVE });
    expect(updated.provider?.specialty).toBeUndefined();
    const error = await failureOf(
      fieldops.updateServiceProvider({ providerId: id, provider: {}, updateMask: { paths: ["name"] } }),
    );
    expect(violationsOf(error)).toEqual([expect.objectContaining({ field: "provider.name", rule: "type" })]);
  });

  it("refuses a booking on a hold that is gone with the named error SLOT_HOLD_GONE", async () => {
    const fieldops = bed.client(FieldopsService, { orgId: randomUUID() });
    const { appointmentType } = await fieldops.createAppointmentType({ name: "Visit", durationMinutes: 30 });
    const error = await failureOf(
      fieldops.bookAppointment({
        appointmentTypeId: appointmentType?.id ?? "",
        holdId: randomUUID(),
        contact: { name: "Pat" },
      }),
    );
    expect([error.code, errorReason(error)]).toEqual([Code.FailedPrecondition, "SLOT_HOLD_GONE"]);
  });

  // The wording of the slot refusals, asserted here once; the HTTP tests compare with the named errors.
  it("words the slot refusals as the API answers them", () => {
    expect(fieldopsErrors.SLOT_TAKEN().rawMessage).toBe("Slot no longer available");
    expect(fieldopsErrors.SLOT_HOLD_GONE().rawMessage).toBe("Slot hold expired or unknown");
  });

  it("opens an alert by default, on create and on replace", async () => {
    const fieldops = bed.client(FieldopsService, { orgId: randomUUID() });
    const { alert } = await fieldops.createUrgentAlert({
      alert: { location: " Basement ", alertType: "flood", title: " " },
    });
    expect(alert).toMatchObject({
      location: "Basement",
      alertType: "flood",
      resolutionStatus: UrgentAlertResolutionStatus.OPEN,
    });
    expect(alert?.title).toBeUndefined();
    const id = alert?.id ?? "";
    const resolved = await fieldops.updateUrgentAlert({
      alertId: id,
      alert: { location: "Basement", alertType: "flood", resolutionStatus: UrgentAlertResolutionStatus.RESOLVED },
    });
    expect(resolved.alert?.resolutionStatus).toBe(UrgentAlertResolutionStatus.RESOLVED);
    const replaced = await fieldops.updateUrgentAlert({
      alertId: id,
      alert: { location: "Attic", alertType: "flood" },
    });
    expect(replaced.alert).toMatchObject({ location: "Attic", resolutionStatus: UrgentAlertResolutionStatus.OPEN });
    expect(await fieldops.listUrgentAlerts({})).toMatchObject({ page: 1, pageSize: 50, total: 1 });
  });

  it("creates an appointment type with its declared defaults, and a partial update keeps the rest", async () => {
    const fieldops = bed.client(FieldopsService, { orgId: randomUUID() });
    const { appointmentType } = await fieldops.createAppointmentType({
      name: "Visit",
      durationMinutes: 30,
      requiredSkills: ["hvac", " hvac"],
    });
    expect(appointmentType).toMatchObject({
      name: "Visit",
      durationMinutes: 30,
      slotIntervalMinutes: 30,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      minNoticeMinutes: 60,
      maxDaysAhead: 60,
      requiredSkills: ["hvac"],
      isActive: true,
    });
    const id = appointmentType?.id ?? "";
    const updated = await fieldops.updateAppointmentType({
      appointmentTypeId: id,
      appointmentType: { bufferBeforeMinutes: 15, isActive: false },
      updateMask: { paths: ["buffer_before_minutes", "is_active", "max_days_ahead"] },
    });
    expect(updated.appointmentType).toMatchObject({
      bufferBeforeMinutes: 15,
      isActive: false,
      maxDaysAhead: 60,
      minNoticeMinutes: 60,
      requiredSkills: ["hvac"],
    });
    expect((await fieldops.listAppointmentTypes({})).items).toEqual([]);
    expect((await fieldops.listAppointmentTypes({ includeInactive: true })).items.map((item) => item.id)).toEqual([id]);
    const error = await failureOf(
      fieldops.updateAppointmentType({ appointmentTypeId: id, appointmentType: {}, updateMask: { paths: ["name"] } }),
    );
    expect(violationsOf(error)).toEqual([expect.objectContaining({ field: "appointment_type.name", rule: "type" })]);
  });
});
