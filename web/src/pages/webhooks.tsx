import { useState } from "preact/hooks";
import { api, errorMessage } from "../api/client";
import type { components } from "../api/schema";
import { when } from "../format";
import { ListTable } from "../table";
import { useApi } from "../use-api";

type Endpoint = components["schemas"]["WebhookEndpoint"];
type Delivery = components["schemas"]["WebhookDelivery"];

const PAGE_SIZE = 25;

export function WebhooksPage() {
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<Endpoint | null>(null);
  const [loaded, reload] = useApi(
    () => api.GET("/api/webhooks", { params: { query: { page, page_size: PAGE_SIZE } } }),
    [page],
  );
  return (
    <>
      <section aria-labelledby="endpoints-title">
        <h2 id="endpoints-title">Endpoints</h2>
        <ListTable<Endpoint>
          loaded={loaded}
          retry={reload}
          what="Webhook endpoints"
          empty="No webhook endpoints yet."
          rowKey={(e) => e.id}
          onPage={setPage}
          columns={[
            { header: "URL", cell: (e) => <code class="url">{e.url}</code> },
            { header: "Events", cell: (e) => (e.event_types.length ? e.event_types.join(", ") : "all") },
            { header: "State", cell: (e) => (e.enabled ? "enabled" : `disabled (${e.disabled_reason ?? "manual"})`) },
            {
              header: "Deliveries",
              cell: (e) => (
                <button
                  type="button"
                  aria-pressed={open?.id === e.id}
                  onClick={() => setOpen(open?.id === e.id ? null : e)}
                  aria-label={`Deliveries to ${e.url}`}
                >
                  Deliveries
                </button>
              ),
            },
          ]}
        />
      </section>
      {open ? <Deliveries key={open.id} endpoint={open} /> : null}
    </>
  );
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const [page, setPage] = useState(1);
  const [notice, setNotice] = useState<{ error: boolean; text: string } | null>(null);
  const [loaded, reload] = useApi(
    () =>
      api.GET("/api/webhooks/{endpoint_id}/deliveries", {
        params: { path: { endpoint_id: endpoint.id }, query: { page, page_size: PAGE_SIZE } },
      }),
    [endpoint.id, page],
  );
  const resend = async (delivery: Delivery) => {
    setNotice(null);
    try {
      const { error, response } = await api.POST("/api/webhooks/{endpoint_id}/deliveries/{delivery_id}/resend", {
        params: { path: { endpoint_id: endpoint.id, delivery_id: delivery.id } },
        body: {},
      });
      setNotice(
        response.ok
          ? { error: false, text: `Resent ${delivery.event_type}: a new attempt is on its way.` }
          : { error: true, text: errorMessage(error, response.status) },
      );
    } catch {
      setNotice({ error: true, text: errorMessage(undefined) });
    }
    reload();
  };
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">
        Delivery log of <code class="url">{endpoint.url}</code>
      </h2>
      <button type="button" onClick={reload}>
        Refresh
      </button>
      {notice ? (
        <p class={notice.error ? "error" : undefined} role={notice.error ? "alert" : "status"}>
          {notice.text}
        </p>
      ) : null}
      <ListTable<Delivery>
        loaded={loaded}
        retry={reload}
        what="Deliveries"
        empty="No deliveries to this endpoint yet."
        rowKey={(d) => d.id}
        onPage={setPage}
        columns={[
          { header: "Event", cell: (d) => d.event_type },
          { header: "Status", cell: (d) => <span class={`status-${d.status}`}>{d.status}</span> },
          { header: "Attempts", cell: (d) => d.attempts },
          {
            header: "Last answer",
            cell: (d) =>
              d.last_error ??
              (d.last_response_status === null
                ? "—"
                : `${d.last_response_status}${d.last_duration_ms === null ? "" : ` in ${d.last_duration_ms} ms`}`),
          },
          { header: "Last attempt", cell: (d) => when(d.last_attempt_at, "not yet") },
          { header: "Next attempt", cell: (d) => when(d.next_attempt_at, "—") },
          {
            header: "Action",
            cell: (d) => (
              <button type="button" onClick={() => resend(d)} aria-label={`Resend ${d.event_type} ${d.event_id}`}>
                Resend
              </button>
            ),
          },
        ]}
      />
    </section>
  );
}
