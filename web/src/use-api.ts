import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { errorMessage } from "./api/client";

export type Loaded<T> = { state: "loading" } | { state: "error"; message: string } | { state: "ready"; data: T };

/**
 * Loads data through the API client on mount (and on reload): loading, error or ready. A reload
 * with the same deps keeps showing the data it has until the new arrives (no "Loading…" flash,
 * nor its announcement to a screen reader, on every refresh).
 */
export function useApi<T>(
  load: () => Promise<{ data?: T; error?: unknown; response: Response }>,
  deps: unknown[] = [],
): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: "loading" });
  const [round, setRound] = useState(0);
  const lastDeps = useRef<unknown[] | null>(null);
  useEffect(() => {
    let live = true;
    const previous = lastDeps.current;
    const sameDeps =
      previous !== null && previous.length === deps.length && deps.every((d, i) => Object.is(d, previous[i]));
    lastDeps.current = deps;
    setLoaded((current) => (sameDeps && current.state === "ready" ? current : { state: "loading" }));
    load().then(
      ({ data, error, response }) => {
        if (!live) return;
        if (data !== undefined && response.ok) setLoaded({ state: "ready", data });
        else setLoaded({ state: "error", message: errorMessage(error, response.status) });
      },
      () => live && setLoaded({ state: "error", message: errorMessage(undefined) }),
    );
    return () => {
      live = false;
    };
  }, [round, ...deps]);
  return [loaded, useCallback(() => setRound((r) => r + 1), [])];
}
