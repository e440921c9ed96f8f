import type { Queryable } from "./database.js";

export interface PageQuery {
  /** A SELECT giving one row with an integer column "total": every match, across pages. */
  total: string;
  /** The SELECT of the matching rows in their order, without LIMIT and OFFSET. */
  rows: string;
  /** Parameters both statements use ($1...). */
  params: readonly unknown[];
  page: number;
  pageSize: number;
}

/**
 * One page of a listing and its total in one round trip. The total is joined to the page, so
 * it is still there when the page is past the end and holds no rows.
 */
export async function selectPage<R extends { id: string | null }>(db: Queryable, query: PageQuery): Promise<{ rows: R[]; total: number }> {
  const params = [...query.params, query.pageSize, (query.page - 1) * query.pageSize];
  const result = await db.query<R & { total: number }>(
    `SELECT t.total, p.* FROM (${query.total}) t
     LEFT JOIN LATERAL (${query.rows} LIMIT $${params.length - 1} OFFSET $${params.length}) p ON true`,
    params,
  );
  return { rows: result.rows.filter((row) => row.id !== null), total: Number(result.rows[0]?.total ?? 0) };
}
