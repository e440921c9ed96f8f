import { useState } from "preact/hooks";
import { api } from "../api/client";
import type { components } from "../api/schema";
import { money, when, words } from "../format";
import { ListTable } from "../table";
import { useApi } from "../use-api";

type ServiceRequest = components["schemas"]["ServiceRequest"];
type PendingQuote = components["schemas"]["PendingQuote"];
type Status = NonNullable<ServiceRequest["status"]>;

const STATUSES: Status[] = ["new", "scheduled", "in_progress", "on_hold", "completed", "cancelled"];
const PAGE_SIZE = 25;

const quoteText = (quote: ServiceRequest["quote"]) =>
  quote ? `${money(quote.quote_amount_cents)} (${quote.status})` : "—";

export function ServiceRequestsPage() {
  const [status, setStatus] = useState<Status | "">("");
  const [page, setPage] = useState(1);
  const [requests, reloadRequests] = useApi(
    () =>
      api.GET("/api/service-requests", {
        params: { query: { page, page_size: PAGE_SIZE, status: status || undefined } },
      }),
    [page, status],
  );
  const [quotes, reloadQuotes] = useApi(() => api.GET("/api/quotes/pending"));
  return (
    <>
      <section aria-labelledby="requests-title">
        <h2 id="requests-title">Service requests</h2>
        <form class="inline" onSubmit={(e) => e.preventDefault()}>
          <div>
            <label for="request-status">Status</label>
            <select
              id="request-status"
              value={status}
              onChange={(e) => {
                setPage(1);
                setStatus(e.currentTarget.value as Status | "");
              }}
            >
              <option value="">any</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {words(s)}
                </option>
              ))}
            </select>
          </div>
        </form>
        <ListTable<ServiceRequest>
          loaded={requests}
          retry={reloadRequests}
          what="Service requests"
          empty={status ? `No ${words(status)} service requests.` : "No service requests yet."}
          rowKey={(r) => r.id}
          onPage={setPage}
          columns={[
            { header: "Description", cell: (r) => r.description },
            { header: "Category", cell: (r) => r.category ?? "—" },
            { header: "Priority", cell: (r) => r.priority.toLowerCase() },
            { header: "Status", cell: (r) => words(r.status) },
            { header: "Emergency", cell: (r) => (r.is_emergency ? words(r.emergency_type ?? "yes") : "no") },
            { header: "Quote", cell: (r) => quoteText(r.quote) },
            { header: "Created", cell: (r) => when(r.created_at) },
          ]}
        />
      </section>
      <section aria-labelledby="quotes-title">
        <h2 id="quotes-title">Quotes awaiting approval</h2>
        <ListTable<PendingQuote>
          loaded={quotes}
          retry={reloadQuotes}
          what="Pending quotes"
          empty="No quote is waiting for the customer."
          rowKey={(q) => q.service_request_id}
          columns={[
            { header: "Service request", cell: (q) => q.service_request.description },
            { header: "Amount", cell: (q) => money(q.quote_amount_cents) },
            { header: "Diagnostic fee", cell: (q) => money(q.diagnostic_fee_cents) },
            { header: "Notes", cell: (q) => q.notes ?? "—" },
            { header: "Updated", cell: (q) => when(q.updated_at) },
          ]}
        />
      </section>
    </>
  );
}
