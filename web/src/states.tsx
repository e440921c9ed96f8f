import type { ComponentChildren } from "preact";
import type { Loaded } from "./use-api";

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function ErrorBox({ message, retry }: { message: string; retry?: () => void }) {
  return (
    <div class="error" role="alert">
      <p>{message}</p>
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="muted empty">{children}</p>;
}

/** Renders the loading and error states of a load, and `ready` once there is data. */
export function Show<T>({
  loaded,
  what,
  retry,
  ready,
}: {
  loaded: Loaded<T>;
  what: string;
  retry: () => void;
  ready: (data: T) => ComponentChildren;
}) {
  if (loaded.state === "loading") return <Loading what={what} />;
  if (loaded.state === "error") return <ErrorBox message={loaded.message} retry={retry} />;
  return <>{ready(loaded.data)}</>;
}
