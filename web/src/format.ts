// How the pages write dates, money and durations (the browser's locale).

export const when = (iso: string | null | undefined, none = "never") => (iso ? new Date(iso).toLocaleString() : none);

export const money = (cents: number | null | undefined) =>
  cents === null || cents === undefined
    ? "—"
    : (cents / 100).toLocaleString(undefined, { style: "currency", currency: "USD", maximumFractionDigits: 0 });

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "—";
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** A status or enum value as words: "in_progress" -> "in progress". */
export const words = (value: string | null | undefined) => (value ? value.replaceAll("_", " ") : "—");

/** Today's date in a time zone (the browser's when none is given), as YYYY-MM-DD. */
export function today(timeZone?: string): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(
    new Date(),
  );
}
