import type { Message } from "@bufbuild/protobuf";
import type { GenMessage } from "@bufbuild/protobuf/codegenv2";
import { withDefaults } from "./defaults.js";

/** The page a listing asks for: the 1-based page number and the number of items a page holds. */
interface PageRequest {
  page: number;
  pageSize: number;
}

/** One page of a listing as every List RPC answers it: its items, the total across pages, and which page it is. */
interface PageAnswer<I> {
  items: I[];
  total: number;
  page: number;
  pageSize: number;
}

/**
 * The page and page_size of a list request, each the declared default where the caller sent
 * none. Their limits are the request message's own rules, checked before a handler runs.
 */
export function pageRequest<T extends Message & { page?: number; pageSize?: number }>(
  schema: GenMessage<T>,
  request: T,
): PageRequest {
  const { page, pageSize } = withDefaults(schema, request, "page", "pageSize");
  return { page, pageSize };
}

/** How many items come before the page. */
export function pageOffset(request: PageRequest): number {
  return (request.page - 1) * request.pageSize;
}

/** The answer to a list request: the page's rows, each turned into an item, and the listing's total. */
export function pageAnswer<R, I>(
  request: PageRequest,
  listing: { rows: readonly R[]; total: number },
  toItem: (row: R) => I,
): PageAnswer<I> {
  return {
    items: listing.rows.map((row) => toItem(row)),
    total: listing.total,
    page: request.page,
    pageSize: request.pageSize,
  };
}
