import { useCallback, useEffect, useState } from "preact/hooks";
import { errorMessage } from "./api/client";

export type Loaded<T> = { state: "loading" } | { state: "error"; message: string } | { state: "ready"; data: T };

/** Loads data through the API client on mount (and on reload): loading, error or ready. */
export function useApi<T>(
  load: () => Promise<{ data?: T; error?: unknown; response: Response }>,
  deps: unknown[] = [],
): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: "loading" });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setLoaded({ state: "loading" });
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
