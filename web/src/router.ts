import { useEffect, useState } from "preact/hooks";

// Pages are paths under /app; links change the history without reloading.

export const BASE = "/app";

export function currentPage(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : "/";
  return path.replace(/\/+$/, "") || "/";
}

export function navigate(page: string): void {
  history.pushState(null, "", `${BASE}${page === "/" ? "/" : page}`);
  dispatchEvent(new PopStateEvent("popstate"));
}

export function usePage(): string {
  const [page, setPage] = useState(currentPage());
  useEffect(() => {
    const changed = () => setPage(currentPage());
    addEventListener("popstate", changed);
    return () => removeEventListener("popstate", changed);
  }, []);
  return page;
}

/** A link to a page: a real href (open in a new tab works), followed in place on a plain click. */
export function linkProps(page: string) {
  return {
    href: `${BASE}${page === "/" ? "/" : page}`,
    onClick: (event: MouseEvent) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(page);
    },
  };
}
