import { useState } from "preact/hooks";
import { api } from "../api/client";
import type { components } from "../api/schema";
import type { Me } from "../app";
import { today, when, words } from "../format";
import { Empty, Show } from "../states";
import { DataTable, ListTable } from "../table";
import { useApi } from "../use-api";

type Appointment = components["schemas"]["Appointment"];
type OnCall = components["schemas"]["OnCallTechnician"];
type OnCallSchedule = components["schemas"]["OnCallSchedule"];

const time = (iso: string, timeZone: string | undefined) =>
  new Date(iso).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", timeZone });

/** The day's appointments (at most 100: one page) with the technicians' names. */
async function loadDay(day: string) {
  const [appointments, technicians] = await Promise.all([
    api.GET("/api/scheduling/appointments", { params: { query: { date_from: day, date_to: day, page_size: 100 } } }),
    api.GET("/api/technicians"),
  ]);
  if (!appointments.data) return appointments;
  if (!technicians.data) return technicians;
  const names = new Map(technicians.data.items.map((t) => [t.id, t.name]));
  const byTechnician = new Map<string, Appointment[]>();
  for (const appointment of appointments.data.items) {
    const name = appointment.technician_id
      ? (names.get(appointment.technician_id) ?? "Unknown technician")
      : "No technician";
    byTechnician.set(name, [...(byTechnician.get(name) ?? []), appointment]);
  }
  return { data: [...byTechnician.entries()], response: appointments.response };
}

/** Days and times are the organization's (as the API reads the dates), not the browser's. */
export function SchedulePage({ me }: { me: Me }) {
  const zone = me.organization?.timezone;
  const [day, setDay] = useState(today(zone));
  const [loaded, reload] = useApi(() => loadDay(day), [day]);
  return (
    <>
      <section aria-labelledby="day-title">
        <h2 id="day-title">Appointments by technician</h2>
        {zone ? <p class="muted">Days and times in {zone}.</p> : null}
        <form class="inline" onSubmit={(e) => e.preventDefault()}>
          <div>
            <label for="schedule-day">Day</label>
            <input
              id="schedule-day"
              type="date"
              value={day}
              onChange={(e) => setDay(e.currentTarget.value || today(zone))}
            />
          </div>
        </form>
        <Show
          loaded={loaded}
          what="appointments"
          retry={reload}
          ready={(groups) =>
            groups.length === 0 ? (
              <Empty>No appointments on {day}.</Empty>
            ) : (
              groups.map(([technician, appointments]) => (
                <div key={technician} class="group">
                  <h3>{technician}</h3>
                  <DataTable<Appointment>
                    caption={`Appointments of ${technician} on ${day}`}
                    rows={appointments}
                    rowKey={(a) => a.id}
                    columns={[
                      { header: "Time", cell: (a) => `${time(a.start_at, zone)}–${time(a.end_at, zone)}` },
                      { header: "Type", cell: (a) => a.appointment_type.name },
                      { header: "Customer", cell: (a) => a.contact.name ?? a.contact.phone_number ?? "—" },
                      { header: "Status", cell: (a) => words(a.status) },
                    ]}
                  />
                </div>
              ))
            )
          }
        />
      </section>
      <OnCallNow />
      <OnCallSchedules />
    </>
  );
}

function OnCallNow() {
  const [loaded, reload] = useApi(() => api.GET("/api/technicians/on-call/current"));
  return (
    <section aria-labelledby="on-call-title">
      <h2 id="on-call-title">On call now</h2>
      <ListTable<OnCall>
        loaded={loaded}
        retry={reload}
        what="Technicians on call now"
        empty="Nobody is on call now."
        rowKey={(t) => t.id}
        columns={[
          { header: "Technician", cell: (t) => t.name },
          { header: "Phone", cell: (t) => t.phone_number ?? "—" },
          { header: "Until", cell: (t) => (t.on_call_source === "flag" ? "standing on call" : when(t.on_call_until)) },
        ]}
      />
    </section>
  );
}

function OnCallSchedules() {
  const [loaded, reload] = useApi(() => api.GET("/api/technicians/on-call/schedule"));
  return (
    <section aria-labelledby="rota-title">
      <h2 id="rota-title">On-call schedule</h2>
      <ListTable<OnCallSchedule>
        loaded={loaded}
        retry={reload}
        what="On-call schedule"
        empty="No on-call shift is planned."
        rowKey={(s) => s.id}
        columns={[
          { header: "Technician", cell: (s) => s.technician?.name ?? s.technician_id },
          { header: "From", cell: (s) => when(s.start_at) },
          { header: "To", cell: (s) => when(s.end_at) },
          { header: "Notes", cell: (s) => s.notes ?? "—" },
        ]}
      />
    </section>
  );
}
