import { api } from "../api/client";
import { Bars, DailyChart } from "../chart";
import { money } from "../format";
import { Show } from "../states";
import { useApi } from "../use-api";

const DAYS = 30;

/** Every figure of the overview, loaded together: one state for the page. */
async function loadOverview() {
  const [dashboard, calls, requests, byStatus, roi] = await Promise.all([
    api.GET("/api/statistics/dashboard"),
    api.GET("/api/statistics/metrics/time-series", { params: { query: { metric: "calls", days: DAYS } } }),
    api.GET("/api/statistics/metrics/time-series", { params: { query: { metric: "service_requests", days: DAYS } } }),
    api.GET("/api/statistics/service-requests/by-status"),
    api.GET("/api/statistics/roi", { params: { query: { days: DAYS } } }),
  ]);
  const failed = [dashboard, calls, requests, byStatus, roi].find((r) => !r.response.ok || r.data === undefined);
  if (failed || !dashboard.data || !calls.data || !requests.data || !byStatus.data || !roi.data)
    return { error: failed?.error, response: failed?.response ?? dashboard.response };
  return {
    data: {
      dashboard: dashboard.data,
      calls: calls.data,
      requests: requests.data,
      byStatus: byStatus.data,
      roi: roi.data,
    },
    response: dashboard.response,
  };
}

export function OverviewPage() {
  const [loaded, reload] = useApi(loadOverview);
  return (
    <Show
      loaded={loaded}
      what="statistics"
      retry={reload}
      ready={({ dashboard, calls, requests, byStatus, roi }) => (
        <>
          <section aria-labelledby="today">
            <h2 id="today">Today</h2>
            <dl class="cards">
              <Card label="Calls today" value={dashboard.calls_today} />
              <Card label="Open leads" value={dashboard.leads_open} />
              <Card label="Open service requests" value={dashboard.service_requests_open} />
              <Card label="Emergencies" value={dashboard.emergencies_active} />
              <Card label="Quotes pending" value={dashboard.quotes_pending} />
              <Card label="Upcoming appointments" value={dashboard.appointments_upcoming} />
              <Card label="Contacts" value={dashboard.contacts_total} />
            </dl>
          </section>
          <section aria-labelledby="trends">
            <h2 id="trends">Last {DAYS} days</h2>
            <div class="grid">
              <DailyChart title="Calls" points={calls.points} color="#2563eb" />
              <DailyChart title="Service requests" points={requests.points} color="#b45309" />
              {byStatus.total === 0 ? (
                <p class="muted empty">No service requests yet.</p>
              ) : (
                <Bars title={`Service requests by status (${byStatus.total})`} counts={byStatus.counts} />
              )}
            </div>
          </section>
          <section aria-labelledby="roi">
            <h2 id="roi">What the assistant did in {roi.days} days</h2>
            <dl class="cards">
              <Card label="Calls answered" value={roi.calls_answered} />
              <Card label="After hours" value={roi.after_hours_calls_answered} />
              <Card label="Leads created" value={roi.leads_created} />
              <Card label="Appointments booked" value={roi.appointments_booked} />
              <Card label="Estimated value" value={money(roi.estimated_value_cents)} />
            </dl>
          </section>
        </>
      )}
    />
  );
}

function Card({ label, value }: { label: string; value: number | string }) {
  return (
    <div class="card">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
