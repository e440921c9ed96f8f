import { useState } from "preact/hooks";
import { api, errorMessage } from "../api/client";
import type { Me } from "../app";
import type { components } from "../api/schema";
import { Show } from "../states";
import { useApi } from "../use-api";

type Week = components["schemas"]["BusinessHours"]["business_hours"];
type Day = keyof Week;

const DAYS: [Day, string][] = [
  ["mon", "Monday"],
  ["tue", "Tuesday"],
  ["wed", "Wednesday"],
  ["thu", "Thursday"],
  ["fri", "Friday"],
  ["sat", "Saturday"],
  ["sun", "Sunday"],
];

/** "08:00-12:00, 13:00-17:00" for a day's intervals; "" when closed. */
const asText = (intervals: { start: string; end: string }[] | undefined) =>
  (intervals ?? []).map((i) => `${i.start}-${i.end}`).join(", ");

function parseDay(text: string): { start: string; end: string }[] {
  return text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [start = "", end = ""] = part.split("-").map((s) => s.trim());
      return { start, end };
    });
}

export function BusinessHoursPage({ me }: { me: Me }) {
  const [loaded, reload] = useApi(() => api.GET("/api/settings/business-hours"));
  const manager = me.role === "owner" || me.role === "admin";
  // The inputs show the stored hours from their first paint, with what the user typed over them.
  // Filled in after that paint, a day's stored text could land in the middle of the user's typing.
  const [edits, setEdits] = useState<Partial<Record<Day, string>>>({});
  /** The week the last save stored (its answer), over the one loaded. */
  const [saved, setSaved] = useState<Week | undefined>();
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);

  const textOf = (stored: Week, day: Day) => edits[day] ?? asText(stored[day]);

  const save = async (event: Event, stored: Week) => {
    event.preventDefault();
    setMessage(null);
    const week = Object.fromEntries(DAYS.map(([day]) => [day, parseDay(textOf(stored, day))])) as Week;
    const { data, error, response } = await api.PUT("/api/settings/business-hours", { body: { business_hours: week } });
    if (data) {
      setSaved(data.business_hours);
      setEdits({});
      setMessage({ error: false, text: "Saved." });
    } else setMessage({ error: true, text: errorMessage(error, response.status) });
  };

  return (
    <Show
      loaded={loaded}
      what="business hours"
      retry={reload}
      ready={(hours) => {
        const stored = saved ?? hours.business_hours;
        return (
          <form onSubmit={(event) => save(event, stored)}>
            <p>
              Opening hours in {hours.timezone}, as "08:00-12:00, 13:00-17:00"; empty means closed. Calls outside them
              count as after hours.
            </p>
            {DAYS.map(([day, label]) => (
              <div key={day} class="day">
                <label for={`hours-${day}`}>{label}</label>
                <input
                  id={`hours-${day}`}
                  value={textOf(stored, day)}
                  readOnly={!manager}
                  onInput={(e) => {
                    const text = e.currentTarget.value;
                    setEdits((current) => ({ ...current, [day]: text }));
                  }}
                />
              </div>
            ))}
            {message ? (
              <p class={message.error ? "error" : "muted"} role={message.error ? "alert" : "status"}>
                {message.text}
              </p>
            ) : null}
            {manager ? (
              <button type="submit">Save business hours</button>
            ) : (
              <p class="muted">Only owners and admins change the business hours.</p>
            )}
          </form>
        );
      }}
    />
  );
}
