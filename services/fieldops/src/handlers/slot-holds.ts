import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound, orgOf, type ServiceContext, type Violation } from "@voiceops/platform";
import type {
  CreateSlotHoldRequest,
  DeleteSlotHoldRequest,
  FieldopsService,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import type { FieldopsStores } from "../store/index.js";
import { toSlotHold } from "../store/slot-holds.js";
import { bookingRules } from "../scheduling/booking.js";

// Slot holds emit no events: a hold is transient (minutes), and what it leads to, a booking,
// is announced as fieldops.appointment.booked.

/** `holdSeconds`: how long a hold lasts (SLOT_HOLD_SECONDS). */
export function slotHoldHandlers(service: ServiceContext, stores: FieldopsStores, holdSeconds: number) {
  const { db } = service;
  const { slotHolds } = stores;
  const { activeType, planBooking, claimFirstThatFits } = bookingRules(service, stores);

  return {
    async createSlotHold(req: CreateSlotHoldRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const violations: Violation[] = [];
      const type = await activeType(org.orgId, req.appointmentTypeId, violations);
      if (violations.length > 0 || !type || !req.start) throw invalidArgument(violations);
      // The same checks and choice of technician as a booking; the claim is the hold's.
      const plan = await planBooking(db, org, type, timestampDate(req.start), {
        technicianId: req.technicianId?.toLowerCase(),
      });
      const row = await claimFirstThatFits(ctx, org.orgId, plan, (tx, _emit, technicianId, now) =>
        slotHolds.insert(
          tx,
          org.orgId,
          {
            appointment_type_id: type.id,
            technician_id: technicianId,
            start_at: new Date(plan.slot.start),
            end_at: new Date(plan.slot.end),
            held_from: new Date(plan.held.start),
            held_to: new Date(plan.held.end),
            expires_at: new Date(now.getTime() + holdSeconds * 1000),
          },
          now,
        ),
      );
      return { hold: toSlotHold(row) };
    },

    async deleteSlotHold(req: DeleteSlotHoldRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const released = await service.write(ctx, (tx) => slotHolds.take(tx, org.orgId, req.holdId));
      if (!released) throw notFound("Slot hold");
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof FieldopsService>>;
}
