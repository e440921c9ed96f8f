// Names of the counters and bucket metrics the consumers keep and the handlers read.

export const Counter = {
  contacts: "contacts_total",
  customers: "customers_total",
  leadsOpen: "leads_open",
  requestsOpen: "service_requests_open",
  emergenciesActive: "emergencies_active",
  quotesPending: "quotes_pending",
  dispatchesActive: "dispatches_active",
  requestStatus: (status: string) => `service_request_status:${status}`,
  requestPriority: (priority: string) => `service_request_priority:${priority}`,
  appointmentStatus: (status: string) => `appointment_status:${status}`,
} as const;

export const Metric = {
  leadsCreated: "leads_created",
  leadValueCents: "lead_value_cents",
  requestsCreated: "service_requests_created",
  quoteValueCents: "quote_value_cents",
  appointmentsBooked: "appointments_booked",
  activities: "activities",
  /** CALL_ENDED activities outside the organization's opening hours. */
  callsAfterHours: "calls_after_hours",
  activity: (type: string) => `activity:${type}`,
} as const;
