import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import {
  ContactFieldsSchema,
  CreateLeadRequestSchema,
  LeadStatus,
  ListContactsRequestSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import {
  AppointmentTypeFieldsSchema,
  UrgentAlertFieldsSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import {
  CreateServiceRequestRequestSchema,
  ServiceRequestFieldsSchema,
  ServiceRequestPriority,
  ServiceRequestStatus,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { columnValues, requiredText } from "../src/column-values.js";
import { withDefaults } from "../src/defaults.js";

const ID = "018F0000-0000-7000-8000-00000000ABCD";

describe("columnValues", () => {
  it("maps each kind of field by its descriptor: text, ids, enums, timestamps, 64-bit integers", () => {
    const due = new Date("2026-03-01T10:00:00Z");
    const message = create(CreateServiceRequestRequestSchema, {
      contactId: ID,
      address: "  12 Main St  ",
      category: "   ",
      description: " Leak ",
      priority: ServiceRequestPriority.HIGH,
      status: ServiceRequestStatus.IN_PROGRESS,
      dueAt: timestampFromDate(due),
    });
    const columns = [
      "contact_id",
      "address",
      "category",
      "description",
      "priority",
      "status",
      "due_at",
      "provider_id",
    ] as const;
    const { values, violations } = columnValues<Record<(typeof columns)[number], unknown>>(
      CreateServiceRequestRequestSchema,
      message,
      columns,
    );
    expect(violations).toEqual([]);
    expect(values).toEqual({
      contact_id: ID.toLowerCase(),
      address: "12 Main St",
      category: null,
      description: "Leak",
      priority: "HIGH",
      status: "in_progress",
      due_at: due,
      provider_id: null,
    });
    const lead = create(CreateLeadRequestSchema, { estimatedValueCents: 12_345n });
    expect(
      columnValues<{ estimated_value_cents: unknown }>(CreateLeadRequestSchema, lead, ["estimated_value_cents"]).values,
    ).toEqual({ estimated_value_cents: 12_345 });
  });

  it("fills an absent field with its declared default, and never replaces an explicit value", () => {
    const absent = columnValues<{ priority: unknown; status: unknown }>(
      CreateServiceRequestRequestSchema,
      create(CreateServiceRequestRequestSchema),
      ["priority", "status"],
    );
    expect(absent.values).toEqual({ priority: "MEDIUM", status: "new" });
    const lead = create(CreateLeadRequestSchema, { status: LeadStatus.WON });
    expect(columnValues<{ status: unknown }>(CreateLeadRequestSchema, lead, ["status"]).values).toEqual({
      status: "won",
    });
    const alert = columnValues<{ resolution_status: unknown }>(
      UrgentAlertFieldsSchema,
      create(UrgentAlertFieldsSchema),
      ["resolution_status"],
    );
    expect(alert.values).toEqual({ resolution_status: "open" });
  });

  it("leaves out a named field that cannot be null and has no value, and clears the others", () => {
    const body = create(ServiceRequestFieldsSchema);
    const { values } = columnValues<Record<string, unknown>>(ServiceRequestFieldsSchema, body, [
      "status",
      "priority",
      "description",
      "address",
      "due_at",
    ]);
    expect(values).toEqual({ address: null, due_at: null });
  });

  it("normalizes phone numbers with the given country and reports the ones that are not", () => {
    const good = create(ContactFieldsSchema, { phoneNumber: "020 7946 0018" });
    expect(
      columnValues<{ phone_number: unknown }>(ContactFieldsSchema, good, ["phone_number"], { country: "GB" }).values,
    ).toEqual({ phone_number: "+442079460018" });
    const blank = create(ContactFieldsSchema, { phoneNumber: "  " });
    expect(
      columnValues<{ phone_number: unknown }>(ContactFieldsSchema, blank, ["phone_number"], { country: "GB" }).values,
    ).toEqual({ phone_number: null });
    const bad = create(ContactFieldsSchema, { phoneNumber: "12" });
    const result = columnValues<{ phone_number: unknown }>(ContactFieldsSchema, bad, ["phone_number"], {
      country: "US",
      prefix: "contact.",
    });
    expect(result.values).toEqual({});
    expect(result.violations).toEqual([expect.objectContaining({ field: "contact.phone_number", rule: "format" })]);
    expect(() => columnValues<{ phone_number: unknown }>(ContactFieldsSchema, good, ["phone_number"])).toThrow(
      /country/,
    );
  });

  it("trims lists of labels, drops blanks and duplicates; an absent list is empty", () => {
    const body = create(AppointmentTypeFieldsSchema, { requiredSkills: [" hvac", "hvac ", "", "gas"] });
    expect(
      columnValues<{ required_skills: unknown }>(AppointmentTypeFieldsSchema, body, ["required_skills"]).values,
    ).toEqual({ required_skills: ["hvac", "gas"] });
    expect(columnValues<{ tags: unknown }>(ContactFieldsSchema, create(ContactFieldsSchema), ["tags"]).values).toEqual({
      tags: [],
    });
  });

  it("lets an override decide a field: a required name named without a value is a violation", () => {
    const body = create(AppointmentTypeFieldsSchema, { name: "  Visit " });
    expect(
      columnValues<{ name: unknown }>(AppointmentTypeFieldsSchema, body, ["name"], {
        overrides: { name: requiredText },
      }).values,
    ).toEqual({ name: "Visit" });
    const result = columnValues<{ name: unknown }>(
      AppointmentTypeFieldsSchema,
      create(AppointmentTypeFieldsSchema),
      ["name"],
      {
        prefix: "appointment_type.",
        overrides: { name: requiredText },
      },
    );
    expect(result.values).toEqual({});
    expect(result.violations).toEqual([
      expect.objectContaining({ field: "appointment_type.name", rule: "type", context: { expected: "string" } }),
    ]);
  });

  it("refuses a column the message does not have", () => {
    expect(() => columnValues<{ nope: unknown }>(ContactFieldsSchema, create(ContactFieldsSchema), ["nope"])).toThrow(
      "voiceops.crm.v1.ContactFields has no field nope",
    );
  });
});

describe("withDefaults", () => {
  it("types the named fields as present, filling their declared defaults and keeping explicit values", () => {
    const request = create(ListContactsRequestSchema, { pageSize: 7 });
    const { page, pageSize, prospects } = withDefaults(
      ListContactsRequestSchema,
      request,
      "page",
      "pageSize",
      "prospects",
    );
    expect([page, pageSize, prospects]).toEqual([1, 7, false]);
  });

  it("refuses a field that declares no default", () => {
    expect(() => withDefaults(ListContactsRequestSchema, create(ListContactsRequestSchema), "search")).toThrow(
      "voiceops.crm.v1.ListContactsRequest.search declares no default",
    );
  });
});
