import { pageOffset } from "../paging.js";
import type { Queryable } from "./database.js";

interface PageQuery {
  /** A SELECT giving one row with an integer column "total": every match, across pages. */
  total: string;
  /** The SELECT of the matching rows in their order, without LIMIT and OFFSET. */
  rows: string;
  /** Parameters both statements use ($1...); each must appear in one of them at least. */
  params: readonly unknown[];
  page: number;
  pageSize: number;
}

interface WindowQuery {
  total: string;
  rows: string;
  params: readonly unknown[];
  limit: number;
  offset: number;
}

/**
 * Rows from `offset` (at most `limit`) of a listing, and its total, in one round trip. The total
 * is joined to the rows, so it is still there when the window is past the end and holds none.
 */
export async function selectWindow<R extends { id: string | null }>(
  db: Queryable,
  query: WindowQuery,
): Promise<{ rows: R[]; total: number }> {
  const params = [...query.params, query.limit, query.offset];
  const result = await db.query<R & { total: number }>(
    `SELECT t.total, p.* FROM (${query.total}) t
     LEFT JOIN LATERAL (${query.rows} LIMIT $${params.length - 1} OFFSET $${params.length}) p ON true`,
    params,
  );
  return { rows: result.rows.filter((row) => row.id !== null), total: Number(result.rows[0]?.total ?? 0) };
}

/** One page of a listing and its total in one round trip (see selectWindow). */
export function selectPage<R extends { id: string | null }>(
  db: Queryable,
  query: PageQuery,
): Promise<{ rows: R[]; total: number }> {
  return selectWindow<R>(db, {
    total: query.total,
    rows: query.rows,
    params: query.params,
    limit: query.pageSize,
    offset: pageOffset(query),
  });
}

interface CountedPageQuery {
  /** The select list of a row. */
  columns: string;
  /** "FROM" and "WHERE" of the listing, e.g. "crm.contacts WHERE org_id = $1 AND ...". */
  from: string;
  orderBy: string;
  params: readonly unknown[];
  page: number;
  pageSize: number;
}

/**
 * One page and its total from a single scan of the matches (a search: the count comes from
 * `count(*) OVER ()` over the same rows the page is cut from, not from a second scan). Only a
 * page past the end, which has no row to carry the total, costs a separate count.
 */
export async function selectCountedPage<R extends object>(
  db: Queryable,
  query: CountedPageQuery,
): Promise<{ rows: R[]; total: number }> {
  const params = [...query.params, query.pageSize, pageOffset(query)];
  const result = await db.query<R & { total__: number }>(
    `SELECT ${query.columns}, count(*) OVER () AS total__ FROM ${query.from}
     ORDER BY ${query.orderBy} LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  if (result.rows.length === 0 && query.page > 1) {
    const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${query.from}`, query.params);
    return { rows: [], total: Number(count.rows[0]?.total ?? 0) };
  }
  const total = Number(result.rows[0]?.total__ ?? 0);
  const rows = result.rows.map(({ total__: _, ...row }) => row as unknown as R);
  return { rows, total };
}
