/** The instant `hours` before `now` (a listing's hours_back), or undefined when none is asked. */
export const hoursBefore = (now: Date, hours: number | undefined): Date | undefined =>
  hours === undefined ? undefined : new Date(now.getTime() - hours * 3_600_000);
