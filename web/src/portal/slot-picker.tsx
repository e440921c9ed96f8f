import { useId, useState } from "preact/hooks";
import { api } from "../api/client";
import { Empty, ErrorBox, Show } from "../states";
import { useApi } from "../use-api";

// Choosing a free slot of the business: a kind of visit, a day, then one of that day's free
// times. The days and times are the browser's own time zone.

interface AppointmentTypeChoice {
  id: string;
  name: string;
}

const TIMEZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** YYYY-MM-DD of a moment in the browser's time zone. */
function localDay(moment: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${moment.getFullYear()}-${pad(moment.getMonth() + 1)}-${pad(moment.getDate())}`;
}

const time = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { timeStyle: "short" });

export function SlotPicker({
  token,
  types,
  day: initialDay,
  action,
  submit,
  bookings = 0,
}: {
  token: string;
  types: AppointmentTypeChoice[];
  /** The day shown first (an ISO moment); today when unset. */
  day?: string;
  /** The submit button's text. */
  action: string;
  /** Books or moves to the chosen start: a failure's message, or undefined when done. */
  submit: (typeId: string, start: string) => Promise<string | undefined>;
  /** How many bookings the page has made or moved: the free times are asked again when it grows. */
  bookings?: number;
}) {
  const id = useId();
  const today = localDay(new Date());
  const [typeId, setTypeId] = useState(types[0]?.id ?? "");
  const [day, setDay] = useState(initialDay ? localDay(new Date(initialDay)) : today);
  const [start, setStart] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const [slots, reloadSlots] = useApi(
    () =>
      api.GET("/portal/api/{token}/availability", {
        params: {
          path: { token },
          query: { appointment_type_id: typeId, date_from: day, date_to: day, timezone: TIMEZONE },
        },
      }),
    [token, typeId, day, bookings],
  );

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    if (!start) return setFailure("Choose a time first.");
    setBusy(true);
    setFailure(undefined);
    const problem = await submit(typeId, start).catch(() => "The server could not be reached");
    setBusy(false);
    if (problem) setFailure(problem);
    else setStart("");
    // Taken meanwhile, or taken now by this booking.
    reloadSlots();
  };

  return (
    <form class="slot-picker" onSubmit={onSubmit}>
      <div class="fields">
        {types.length > 1 ? (
          <div>
            <label for={`${id}-type`}>Kind of visit</label>
            <select
              id={`${id}-type`}
              value={typeId}
              onChange={(e) => {
                setTypeId(e.currentTarget.value);
                setStart("");
              }}
            >
              {types.map((type) => (
                <option key={type.id} value={type.id}>
                  {type.name}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <div>
          <label for={`${id}-day`}>Day</label>
          <input
            id={`${id}-day`}
            type="date"
            min={today}
            value={day}
            onChange={(e) => {
              if (e.currentTarget.value) setDay(e.currentTarget.value);
              setStart("");
            }}
          />
        </div>
      </div>
      <fieldset>
        <legend>Free times{types.length === 1 ? ` for ${types[0]?.name}` : ""}</legend>
        <Show
          loaded={slots}
          what="free times"
          retry={reloadSlots}
          ready={(answer) =>
            answer.slots.length === 0 ? (
              <Empty>No free times on this day. Please choose another day.</Empty>
            ) : (
              <div class="slots">
                {answer.slots.map((slot) => (
                  <label key={slot.start} class="slot">
                    <input
                      type="radio"
                      name={`${id}-start`}
                      value={slot.start}
                      checked={start === slot.start}
                      onChange={() => setStart(slot.start)}
                    />
                    {time(slot.start)}
                  </label>
                ))}
              </div>
            )
          }
        />
      </fieldset>
      {failure ? <ErrorBox message={failure} /> : null}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {action}
        </button>
      </div>
    </form>
  );
}
