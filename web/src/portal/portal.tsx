import { useRef, useState } from "preact/hooks";
import { api, errorMessage } from "../api/client";
import type { components } from "../api/schema";
import { Empty, ErrorBox, Show } from "../states";
import { useApi } from "../use-api";
import { SlotPicker } from "./slot-picker";

// The customer's own page (/portal/<token>): the token in the URL is the credential of every
// call (the portal's JSON routes, /portal/api/<token>/...).

type PortalPage = components["schemas"]["PortalPage"];
type ServiceRequest = components["schemas"]["ServiceRequest"];
type Appointment = components["schemas"]["Appointment"];

/** The token of a portal URL, `/portal/<token>`. */
export function tokenFromPath(pathname: string): string {
  return decodeURIComponent(pathname.split("/")[2] ?? "");
}

const price = (cents: number) => (cents / 100).toLocaleString(undefined, { style: "currency", currency: "USD" });
const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

const REQUEST_STATUS: Record<ServiceRequest["status"], string> = {
  new: "Received",
  scheduled: "Scheduled",
  in_progress: "In progress",
  on_hold: "On hold",
  completed: "Completed",
  cancelled: "Cancelled",
};
const QUOTE_STATUS = {
  pending: "Awaiting your decision",
  approved: "Approved",
  rejected: "Rejected",
  billed: "Billed",
};

const NOT_VALID = "This link is not valid any more. Please ask the business for a new link.";

export function Portal({ token }: { token: string }) {
  const [loaded, reload] = useApi<PortalPage>(async () => {
    const answer = await api.GET("/portal/api/{token}", { params: { path: { token } } });
    // A token revoked or expired while the page was open: say so, not the API's wording.
    return answer.response.status === 404 ? { ...answer, error: { detail: NOT_VALID } } : answer;
  }, [token]);
  const [notice, setNotice] = useState("");

  return (
    <main id="main" class="portal">
      <p class={notice ? "notice" : "visually-hidden"} role="status" aria-live="polite">
        {notice}
      </p>
      <Show
        loaded={loaded}
        what="your page"
        retry={reload}
        ready={(page) => <PortalContent token={token} page={page} announce={setNotice} />}
      />
    </main>
  );
}

interface ContentProps {
  token: string;
  page: PortalPage;
  announce: (text: string) => void;
}

const byStart = (a: Appointment, b: Appointment) => Date.parse(a.start_at) - Date.parse(b.start_at);

function PortalContent({ token, page, announce }: ContentProps) {
  // Kept here and changed by the answers of booking and moving, so the page is not loaded again
  // (which would take the keyboard's place away).
  const [appointments, setAppointments] = useState(page.appointments);
  const [bookings, setBookings] = useState(0);
  const appointmentsHeading = useRef<HTMLHeadingElement>(null);
  const booked = (appointment: Appointment, replaces?: string) => {
    setAppointments((all) => [...all.filter((a) => a.id !== replaces), appointment].sort(byStart));
    setBookings((n) => n + 1);
    appointmentsHeading.current?.focus();
  };
  return (
    <>
      <header class="portal-head">
        <h1>{page.business.name}</h1>
        <p class="muted">Your requests and appointments. This link works until {when(page.expires_at)}.</p>
      </header>
      <section aria-labelledby="requests-heading">
        <h2 id="requests-heading">Your service requests</h2>
        {page.service_requests.length === 0 ? (
          <Empty>You have no open service requests.</Empty>
        ) : (
          <ul class="portal-list">
            {page.service_requests.map((request) => (
              <RequestItem key={request.id} token={token} initial={request} announce={announce} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="appointments-heading">
        <h2 id="appointments-heading" ref={appointmentsHeading} tabIndex={-1}>
          Your appointments
        </h2>
        {appointments.length === 0 ? (
          <Empty>You have no upcoming appointments.</Empty>
        ) : (
          <ul class="portal-list">
            {appointments.map((appointment) => (
              <AppointmentItem
                key={appointment.id}
                token={token}
                appointment={appointment}
                moved={(to) => booked(to, appointment.id)}
                bookings={bookings}
                announce={announce}
              />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="book-heading">
        <h2 id="book-heading">Book a visit</h2>
        {page.appointment_types.length === 0 ? (
          <Empty>The business takes no bookings here at the moment.</Empty>
        ) : (
          <SlotPicker
            token={token}
            types={page.appointment_types}
            action="Book this time"
            bookings={bookings}
            submit={async (typeId, start) => {
              const { data, error, response } = await api.POST("/portal/api/{token}/appointments", {
                params: { path: { token } },
                body: { appointment_type_id: typeId, start },
              });
              if (!data) return errorMessage(error, response.status);
              announce(`Booked: ${data.appointment.appointment_type.name} on ${when(data.appointment.start_at)}.`);
              booked(data.appointment);
              return undefined;
            }}
          />
        )}
      </section>
    </>
  );
}

function RequestItem({
  token,
  initial,
  announce,
}: {
  token: string;
  initial: ServiceRequest;
  announce: (text: string) => void;
}) {
  const [request, setRequest] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const heading = useRef<HTMLHeadingElement>(null);
  const quote = request.quote;

  const decide = async (status: "approved" | "rejected") => {
    setBusy(true);
    setFailure(undefined);
    const { data, error, response } = await api
      .POST("/portal/api/{token}/service-requests/{service_request_id}/quote", {
        params: { path: { token, service_request_id: request.id } },
        body: { status },
      })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (!data) return setFailure(errorMessage(error, response?.status));
    setRequest(data.service_request);
    announce(`You ${status} the quote for ${request.description}.`);
    // The buttons are gone: keep the keyboard's place on the request.
    heading.current?.focus();
  };

  return (
    <li class="card portal-item">
      <h3 ref={heading} tabIndex={-1}>
        {request.description}
      </h3>
      <p>Status: {REQUEST_STATUS[request.status]}</p>
      {quote ? (
        <>
          <dl class="facts">
            <div>
              <dt>Quote</dt>
              <dd>{price(quote.quote_amount_cents)}</dd>
            </div>
            {quote.diagnostic_fee_cents !== null ? (
              <div>
                <dt>Diagnostic fee</dt>
                <dd>{price(quote.diagnostic_fee_cents)}</dd>
              </div>
            ) : null}
            <div>
              <dt>Quote status</dt>
              <dd>{QUOTE_STATUS[quote.status]}</dd>
            </div>
          </dl>
          {quote.notes ? <p>{quote.notes}</p> : null}
          {quote.status === "pending" ? (
            <div class="actions">
              <button type="button" class="primary" disabled={busy} onClick={() => decide("approved")}>
                Approve quote<span class="visually-hidden"> for {request.description}</span>
              </button>
              <button type="button" disabled={busy} onClick={() => decide("rejected")}>
                Reject quote<span class="visually-hidden"> for {request.description}</span>
              </button>
            </div>
          ) : null}
        </>
      ) : (
        <p class="muted">No quote yet.</p>
      )}
      {failure ? <ErrorBox message={failure} /> : null}
    </li>
  );
}

function AppointmentItem({
  token,
  appointment,
  moved,
  bookings,
  announce,
}: {
  token: string;
  appointment: Appointment;
  moved: (to: Appointment) => void;
  bookings: number;
  announce: (text: string) => void;
}) {
  const [changing, setChanging] = useState(false);
  const name = appointment.appointment_type.name;
  return (
    <li class="card portal-item">
      <h3>{name}</h3>
      <p>
        <time dateTime={appointment.start_at}>{when(appointment.start_at)}</time> to{" "}
        <time dateTime={appointment.end_at}>
          {new Date(appointment.end_at).toLocaleTimeString(undefined, { timeStyle: "short" })}
        </time>
      </p>
      <div class="actions">
        <button type="button" aria-expanded={changing} onClick={() => setChanging(!changing)}>
          {changing ? "Keep this time" : "Change time"}
          <span class="visually-hidden">
            {" "}
            of {name} on {when(appointment.start_at)}
          </span>
        </button>
      </div>
      {changing ? (
        <SlotPicker
          token={token}
          types={[appointment.appointment_type]}
          day={appointment.start_at}
          action="Move to this time"
          bookings={bookings}
          submit={async (_typeId, start) => {
            const { data, error, response } = await api.POST(
              "/portal/api/{token}/appointments/{appointment_id}/reschedule",
              { params: { path: { token, appointment_id: appointment.id } }, body: { start } },
            );
            if (!data) return errorMessage(error, response.status);
            announce(`Moved: ${name} is now on ${when(data.appointment.start_at)}.`);
            setChanging(false);
            moved(data.appointment);
            return undefined;
          }}
        />
      ) : null}
    </li>
  );
}
