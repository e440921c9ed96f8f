import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { hashSecret } from "@voiceops/platform";
import {
  AppointmentAction,
  AppointmentSchema,
  AppointmentStatus,
  AppointmentTypeSchema,
  CheckAvailabilityResponseSchema,
  FieldopsService,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import {
  JobsService,
  QuoteDecision,
  ServiceRequestSchema,
  ServiceRequestStatus,
} from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { gatewayErrors, sendDetail, sendJson, sendRefusal, sendValidation } from "../errors/index.js";
import { FixedWindowCounter } from "../http/fixed-window.js";
import { jsonBody } from "../http/json-body.js";
import { writeMessage } from "../transcoder/json-codec.js";
import { PortalContext, PortalFailure, type PortalDeps } from "./portal-context.js";

const CLOSED = new Set([ServiceRequestStatus.COMPLETED, ServiceRequestStatus.CANCELLED]);
const UPCOMING = new Set([AppointmentStatus.SCHEDULED, AppointmentStatus.CONFIRMED]);
const DECISIONS: Record<string, QuoteDecision> = { approved: QuoteDecision.APPROVED, rejected: QuoteDecision.REJECTED };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The most records of each kind the page shows (the services' largest page). */
const PAGE = 100;

type Handler = (portal: PortalContext, req: Request, res: Response) => Promise<void>;

function invalid(loc: string[], msg: string, input: unknown): PortalFailure {
  return new PortalFailure(422, [{ loc, msg, type: "value_error", ...(input === undefined ? {} : { input }) }]);
}

function requireUuid(value: unknown, loc: string[]): string {
  if (typeof value !== "string" || !UUID.test(value)) throw invalid(loc, "Input should be a valid UUID", value);
  return value;
}

function requireStart(body: Record<string, unknown>): Date {
  const start = typeof body.start === "string" ? new Date(body.start) : undefined;
  if (!start || Number.isNaN(start.getTime()))
    throw invalid(["body", "start"], "Input should be a valid datetime", body.start);
  return start;
}

const bodyOf = (req: Request): Record<string, unknown> =>
  typeof req.body === "object" && req.body !== null && !Array.isArray(req.body) ? req.body : {};

/** The contact's own service request, or a 404 (another contact's is as unknown as a missing one). */
async function ownServiceRequest(portal: PortalContext, id: string) {
  const { serviceRequest } = await portal.call(JobsService.method.getServiceRequest, { serviceRequestId: id });
  if (!serviceRequest || serviceRequest.contactId !== portal.contactId)
    throw new PortalFailure(404, "Service request not found");
  return serviceRequest;
}

async function upcomingAppointments(portal: PortalContext) {
  const { items } = await portal.call(FieldopsService.method.listAppointments, {
    contactId: portal.contactId,
    pageSize: PAGE,
  });
  const now = portal.deps.clock.now().getTime();
  return items.filter(
    (a) => UPCOMING.has(a.status) && a.startAt !== undefined && Number(a.startAt.seconds) * 1000 > now,
  );
}

const page: Handler = async (portal, _req, res) => {
  const [requests, appointments, types] = await Promise.all([
    portal.call(JobsService.method.listServiceRequests, { contactId: portal.contactId, pageSize: PAGE }),
    upcomingAppointments(portal),
    portal.call(FieldopsService.method.listAppointmentTypes, {}),
  ]);
  sendJson(res, 200, {
    business: { name: portal.businessName },
    contact_id: portal.contactId,
    expires_at: portal.expiresAt.toISOString(),
    service_requests: requests.items
      .filter((r) => !CLOSED.has(r.status))
      .map((r) => writeMessage(ServiceRequestSchema, r)),
    appointments: appointments.map((a) => writeMessage(AppointmentSchema, a)),
    appointment_types: types.items.map((t) => writeMessage(AppointmentTypeSchema, t)),
  });
};

const decideQuote: Handler = async (portal, req, res) => {
  const id = requireUuid(req.params.serviceRequestId, ["path", "service_request_id"]);
  const status = bodyOf(req).status;
  const decision = typeof status === "string" ? DECISIONS[status] : undefined;
  if (decision === undefined) throw invalid(["body", "status"], "Input should be 'approved' or 'rejected'", status);
  await ownServiceRequest(portal, id);
  await portal.call(JobsService.method.updateQuoteStatus, { serviceRequestId: id, status: decision });
  sendJson(res, 200, { service_request: writeMessage(ServiceRequestSchema, await ownServiceRequest(portal, id)) });
};

const availability: Handler = async (portal, req, res) => {
  const typeId = requireUuid(req.query.appointment_type_id, ["query", "appointment_type_id"]);
  const text = (name: string) => (typeof req.query[name] === "string" ? (req.query[name] as string) : undefined);
  const answer = await portal.call(
    FieldopsService.method.checkAvailability,
    {
      appointmentTypeId: typeId,
      dateFrom: text("date_from"),
      dateTo: text("date_to"),
      timezone: text("timezone"),
    },
    "query",
  );
  sendJson(res, 200, writeMessage(CheckAvailabilityResponseSchema, answer));
};

const book: Handler = async (portal, req, res) => {
  const body = bodyOf(req);
  const typeId = requireUuid(body.appointment_type_id, ["body", "appointment_type_id"]);
  const start = requireStart(body);
  const technicianId =
    body.technician_id === undefined || body.technician_id === null
      ? undefined
      : requireUuid(body.technician_id, ["body", "technician_id"]);
  const serviceRequestId =
    body.service_request_id === undefined || body.service_request_id === null
      ? undefined
      : requireUuid(body.service_request_id, ["body", "service_request_id"]);
  if (serviceRequestId) await ownServiceRequest(portal, serviceRequestId);
  const { appointment } = await portal.call(FieldopsService.method.bookAppointment, {
    appointmentTypeId: typeId,
    start: timestampFromDate(start),
    contactId: portal.contactId,
    technicianId,
    serviceRequestId,
  });
  sendJson(res, 201, { appointment: writeMessage(AppointmentSchema, appointment) });
};

const reschedule: Handler = async (portal, req, res) => {
  const id = requireUuid(req.params.appointmentId, ["path", "appointment_id"]);
  const start = requireStart(bodyOf(req));
  const own = await upcomingAppointments(portal);
  if (!own.some((a) => a.id === id)) throw new PortalFailure(404, "Appointment not found");
  const { appointment } = await portal.call(FieldopsService.method.manageAppointment, {
    appointmentId: id,
    action: AppointmentAction.RESCHEDULE,
    start: timestampFromDate(start),
  });
  sendJson(res, 200, { appointment: writeMessage(AppointmentSchema, appointment) });
};

/**
 * The customer portal's JSON API, `/portal/api/<token>/...`: the token is the credential (no
 * API key). Each token has its own rate limit; an unknown, revoked or expired token is a 404.
 */
export function portalApi(deps: PortalDeps & { perMinute: number }): Router {
  const router = express.Router({ mergeParams: true });
  const perToken = new FixedWindowCounter(deps.perMinute, 60_000);

  const run =
    (handler: Handler) =>
    async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      try {
        const token = String(req.params.token);
        // Counted by the token's hash, so the counters never hold a live secret.
        const state = perToken.consume(hashSecret(token));
        if (!state.allowed) {
          res.setHeader("Retry-After", String(Math.max(1, Math.ceil(state.msBeforeNext / 1000))));
          return sendRefusal(res, gatewayErrors.RATE_LIMITED());
        }
        await handler(await PortalContext.open(deps, token, req.requestId), req, res);
      } catch (error) {
        if (!(error instanceof PortalFailure)) return next(error);
        if (typeof error.detail === "string") sendDetail(res, error.status, error.detail);
        else sendValidation(res, error.detail);
      }
    };

  router.get("/portal/api/:token", run(page));
  router.post("/portal/api/:token/service-requests/:serviceRequestId/quote", ...jsonBody("16kb"), run(decideQuote));
  router.get("/portal/api/:token/availability", run(availability));
  router.post("/portal/api/:token/appointments", ...jsonBody("16kb"), run(book));
  router.post("/portal/api/:token/appointments/:appointmentId/reschedule", ...jsonBody("16kb"), run(reschedule));
  return router;
}
