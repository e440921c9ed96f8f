import type { MessageInitShape } from "@bufbuild/protobuf";
import { invalidValue, required } from "@voiceops/platform";
import {
  AppointmentAction,
  AppointmentSchema,
  BookAppointmentRequestSchema,
  CheckAvailabilityRequestSchema,
  CheckAvailabilityResponseSchema,
  CreateSlotHoldRequestSchema,
  FieldopsService,
  ListAppointmentTypesResponseSchema,
  ManageAppointmentRequestSchema,
  SlotHoldSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { AgentToolArgumentsSchema } from "@voiceops/proto/voiceops/mcp/v1/agent_tools_pb";
import type { ToolContext } from "../context.js";
import { present } from "../errors.js";
import { param } from "../schemas.js";
import { defineTool } from "../tool.js";

export const listAppointmentTypes = defineTool({
  name: "list_appointment_types",
  title: "List appointment types",
  description:
    "Lists the kinds of appointment the business books (name, duration, required skills). Use an id or name from it with find_slots.",
  kind: "read",
  params: [],
  output: ListAppointmentTypesResponseSchema,
  run: (ctx) => ctx.call(FieldopsService.method.listAppointmentTypes, {}),
});

/** The id of the active appointment type named `name`, ignoring case and surrounding blanks. */
async function appointmentTypeNamed(ctx: ToolContext, name: string): Promise<string> {
  const { items } = await ctx.call(FieldopsService.method.listAppointmentTypes, {});
  const wanted = name.trim().toLowerCase();
  const found = items.find((type) => type.name.trim().toLowerCase() === wanted);
  if (!found) {
    const known = items.map((type) => type.name).join(", ");
    throw ctx.invalid(
      invalidValue(
        "appointment_type_name",
        `no active appointment type has this name${known ? ` (they are: ${known})` : ""}`,
        name,
      ),
    );
  }
  return found.id;
}

export const findSlots = defineTool({
  name: "find_slots",
  title: "Find open slots",
  description:
    "Lists the open appointment slots of an appointment type (by appointment_type_id or appointment_type_name) over a range of dates (default: the next 7 days from today), in the business's time zone unless timezone is given. Offer the caller two or three; hold the chosen one with hold_slot, then book it with book_appointment.",
  kind: "read",
  params: [
    param(CheckAvailabilityRequestSchema, "appointment_type_id", { required: false }),
    param(AgentToolArgumentsSchema, "appointment_type_name"),
    ...["date_from", "date_to", "technician_id", "timezone"].map((name) => param(CheckAvailabilityRequestSchema, name)),
  ],
  output: CheckAvailabilityResponseSchema,
  async run(ctx, args) {
    const request = args.of(CheckAvailabilityRequestSchema) as MessageInitShape<typeof CheckAvailabilityRequestSchema>;
    if (!args.has("appointment_type_id")) {
      const name = args.of(AgentToolArgumentsSchema).appointmentTypeName as string | undefined;
      if (!name?.trim())
        throw ctx.invalid(required("appointment_type_id", "appointment_type_id or appointment_type_name"));
      request.appointmentTypeId = await appointmentTypeNamed(ctx, name);
    }
    return ctx.call(FieldopsService.method.checkAvailability, request);
  },
});

export const holdSlot = defineTool({
  name: "hold_slot",
  title: "Hold a slot",
  description:
    "Keeps a slot find_slots offered free for a few minutes (until expires_at) while the caller decides or gives their details: nobody else can book or hold it meanwhile. Then book it with book_appointment and the hold's id. A slot taken meanwhile is a conflict: find slots again.",
  kind: "write",
  params: ["appointment_type_id", "start", "technician_id"].map((name) => param(CreateSlotHoldRequestSchema, name)),
  output: SlotHoldSchema,
  run: async (ctx, args) =>
    present(
      (
        await ctx.call(
          FieldopsService.method.createSlotHold,
          args.of(CreateSlotHoldRequestSchema) as MessageInitShape<typeof CreateSlotHoldRequestSchema>,
        )
      ).hold,
    ),
});

export const bookAppointment = defineTool({
  name: "book_appointment",
  title: "Book an appointment",
  description:
    "Books a slot for the caller: hold_id of the slot held with hold_slot (with its appointment_type_id; start may then be left out), or the appointment_type_id and start of a slot find_slots offered; and contact_id or contact {name, phone_number, email} (found or created by phone, then email). Link the service request it is for with service_request_id. A slot taken meanwhile, or an expired hold, is a conflict: find slots again.",
  kind: "write",
  params: [
    "hold_id",
    "appointment_type_id",
    "start",
    "contact_id",
    "contact",
    "technician_id",
    "service_request_id",
    "notes",
  ].map((name) => param(BookAppointmentRequestSchema, name)),
  output: AppointmentSchema,
  run: async (ctx, args) =>
    present(
      (
        await ctx.call(
          FieldopsService.method.bookAppointment,
          args.of(BookAppointmentRequestSchema) as MessageInitShape<typeof BookAppointmentRequestSchema>,
        )
      ).appointment,
    ),
});

export const rescheduleAppointment = defineTool({
  name: "reschedule_appointment",
  title: "Reschedule an appointment",
  description:
    "Moves an appointment to a new start (a slot find_slots offers for its type): the new appointment is booked and the old one cancelled in one step, keeping the technician when free. Answers the new appointment (rescheduled_from_id is the old one).",
  kind: "write",
  params: [
    param(ManageAppointmentRequestSchema, "appointment_id"),
    param(ManageAppointmentRequestSchema, "start", {
      required: true,
      description: "The new start: a slot's start from find_slots.",
    }),
    param(ManageAppointmentRequestSchema, "reason"),
  ],
  output: AppointmentSchema,
  async run(ctx, args) {
    const request = args.of(ManageAppointmentRequestSchema) as MessageInitShape<typeof ManageAppointmentRequestSchema>;
    return present(
      (await ctx.call(FieldopsService.method.manageAppointment, { ...request, action: AppointmentAction.RESCHEDULE }))
        .appointment,
    );
  },
});

export const cancelAppointment = defineTool({
  name: "cancel_appointment",
  title: "Cancel an appointment",
  description:
    "Cancels an appointment the caller no longer wants; reason is kept as its cancel_reason. Confirm with the caller first: this cannot be undone (book again instead).",
  kind: "write",
  destructive: true,
  params: [param(ManageAppointmentRequestSchema, "appointment_id"), param(ManageAppointmentRequestSchema, "reason")],
  output: AppointmentSchema,
  async run(ctx, args) {
    const request = args.of(ManageAppointmentRequestSchema) as MessageInitShape<typeof ManageAppointmentRequestSchema>;
    return present(
      (await ctx.call(FieldopsService.method.manageAppointment, { ...request, action: AppointmentAction.CANCEL }))
        .appointment,
    );
  },
});
