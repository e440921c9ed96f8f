import {
  errorResponse,
  jsonRequestBody,
  jsonResponse,
  ref,
  withGatewayResponses,
  type Json,
} from "./operation-parts.js";

// The customer portal's JSON routes (gateway/src/portal/routes.ts) in the OpenAPI document: the
// portal token in the path is the credential (no API key), each token has its own rate limit,
// and an unknown, revoked or expired token is a 404.

const UUID = { type: "string", format: "uuid" };
const TIME = { type: "string", format: "date-time" };

export const PORTAL_SCHEMAS: Record<string, Json> = {
  PortalPage: {
    type: "object",
    description:
      "What a portal token shows: the business, the contact's open service requests with their quotes, upcoming appointments and the appointment types it can book.",
    required: ["business", "contact_id", "expires_at", "service_requests", "appointments", "appointment_types"],
    properties: {
      business: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" } },
        additionalProperties: false,
      },
      contact_id: UUID,
      expires_at: { ...TIME, description: "When the token stops working." },
      service_requests: {
        type: "array",
        description: "The contact's requests that are neither completed nor cancelled.",
        items: ref("ServiceRequest"),
      },
      appointments: {
        type: "array",
        description: "The contact's scheduled or confirmed appointments that have not started.",
        items: ref("Appointment"),
      },
      appointment_types: {
        type: "array",
        description: "The business's active appointment types.",
        items: ref("AppointmentType"),
      },
    },
    additionalProperties: false,
  },
  PortalQuoteDecision: {
    type: "object",
    required: ["status"],
    properties: { status: { type: "string", enum: ["approved", "rejected"] } },
  },
  PortalServiceRequest: {
    type: "object",
    required: ["service_request"],
    properties: { service_request: ref("ServiceRequest") },
    additionalProperties: false,
  },
  PortalBooking: {
    type: "object",
    required: ["appointment_type_id", "start"],
    properties: {
      appointment_type_id: UUID,
      start: { ...TIME, description: "The start of a slot of GET .../availability." },
      technician_id: { ...UUID, description: "Unset: the free technician with the fewest appointments that day." },
      service_request_id: { ...UUID, description: "One of the contact's own service requests." },
    },
  },
  PortalReschedule: {
    type: "object",
    required: ["start"],
    properties: { start: { ...TIME, description: "The start of a slot of GET .../availability." } },
  },
  PortalAppointment: {
    type: "object",
    required: ["appointment"],
    properties: { appointment: ref("Appointment") },
    additionalProperties: false,
  },
};

const tags = ["portal"];
const security: Json[] = [];
const notFound = (what: string) =>
  errorResponse(`The token is unknown, revoked or expired, or ${what}.`, "Portal token not found");
const validation = { $ref: "#/components/responses/ValidationError" };
// Per address as every route, and per token (PORTAL_RATE_LIMIT_PER_MINUTE, default 60).
const tooMany = { $ref: "#/components/responses/TooManyRequests" };
const taken = errorResponse(
  "The slot was taken meanwhile, or the type is no longer bookable.",
  "Slot no longer available",
);
const token: Json = {
  name: "token",
  in: "path",
  required: true,
  description: "The contact's portal token (POST /api/contacts/{contact_id}/portal-token).",
  schema: { type: "string" },
};
const pathId = (name: string, description: string): Json => ({
  name,
  in: "path",
  required: true,
  description,
  schema: UUID,
});
const query = (name: string, description: string, schema: Json, required = false): Json => ({
  name,
  in: "query",
  required,
  description,
  schema,
});

/** The portal paths. */
export function portalPaths(): Record<string, Json> {
  return withGatewayResponses({
    "/portal/api/{token}": {
      get: {
        operationId: "getPortalPage",
        summary: "The customer's portal page",
        tags,
        security,
        parameters: [token],
        responses: { ...jsonResponse("200", "PortalPage"), "404": notFound("never existed"), "429": tooMany },
      },
    },
    "/portal/api/{token}/service-requests/{service_request_id}/quote": {
      post: {
        operationId: "decidePortalQuote",
        summary: "Approve or reject the quote of one of the contact's service requests",
        description: "Sets the quote's status as PUT /api/service-requests/{service_request_id}/quote does.",
        tags,
        security,
        parameters: [token, pathId("service_request_id", "One of the contact's service requests.")],
        requestBody: jsonRequestBody("PortalQuoteDecision"),
        responses: {
          ...jsonResponse("200", "PortalServiceRequest"),
          "404": notFound("the service request is not the contact's"),
          "422": validation,
          "429": tooMany,
        },
      },
    },
    "/portal/api/{token}/availability": {
      get: {
        operationId: "getPortalAvailability",
        summary: "The business's free slots of an appointment type",
        description: "As POST /api/scheduling/check-availability answers.",
        tags,
        security,
        parameters: [
          token,
          query("appointment_type_id", "One of the page's appointment types.", UUID, true),
          query("date_from", "YYYY-MM-DD in timezone; default today.", { type: "string", maxLength: 10 }),
          query("date_to", "YYYY-MM-DD in timezone; default date_from + 6 days; at most date_from + 31 days.", {
            type: "string",
            maxLength: 10,
          }),
          query("timezone", "IANA name the dates are read in and the times written in; default the business's.", {
            type: "string",
            maxLength: 64,
          }),
        ],
        responses: {
          ...jsonResponse("200", "CheckAvailabilityResponse"),
          "404": notFound("the appointment type is unknown"),
          "422": validation,
          "429": tooMany,
        },
      },
    },
    "/portal/api/{token}/appointments": {
      post: {
        operationId: "bookPortalAppointment",
        summary: "Book a slot for the contact",
        description: "Books as POST /api/scheduling/book does, always for the token's contact.",
        tags,
        security,
        parameters: [token],
        requestBody: jsonRequestBody("PortalBooking"),
        responses: {
          ...jsonResponse("201", "PortalAppointment"),
          "404": notFound("the service request is not the contact's"),
          "409": taken,
          "422": validation,
          "429": tooMany,
        },
      },
    },
    "/portal/api/{token}/appointments/{appointment_id}/reschedule": {
      post: {
        operationId: "reschedulePortalAppointment",
        summary: "Move one of the contact's upcoming appointments to another slot",
        tags,
        security,
        parameters: [token, pathId("appointment_id", "One of the page's upcoming appointments.")],
        requestBody: jsonRequestBody("PortalReschedule"),
        responses: {
          ...jsonResponse("200", "PortalAppointment"),
          "404": notFound("the appointment is not one of the contact's upcoming ones"),
          "409": taken,
          "422": validation,
          "429": tooMany,
        },
      },
    },
  });
}
