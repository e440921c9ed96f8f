// The SQL both baselines run: the CRM service's statements for a contact by id, a page of
// contacts (no search, sorted by name) and a new contact with its outbox row.
// Environment: BENCH_ORG_ID, BENCH_OUTBOX (the outbox table, crm.outbox by default; the benchmark
// gives it one of the same shape that no relay reads).

export const orgId = process.env.BENCH_ORG_ID ?? "";
const outbox = process.env.BENCH_OUTBOX ?? "crm.outbox";
if (!/^[a-z_]+\.[a-z_]+$/.test(outbox)) throw new Error(`BENCH_OUTBOX must be schema.table, got "${outbox}"`);

const COLUMNS =
  "id, org_id, name, phone_number, email, status, company_name, address, notes, tags, created_at, updated_at";

export const CONTACT_BY_ID = `SELECT ${COLUMNS} FROM crm.contacts WHERE org_id = $1 AND id = $2`;

/** $1 org, $2 limit, $3 offset: the total (from the per-status counts) joined to the page, one round trip. */
export const CONTACT_PAGE = `SELECT t.total, p.* FROM (
    SELECT coalesce(sum(n), 0)::int AS total FROM (
      SELECT n FROM crm.contact_counts WHERE org_id = $1 AND status <> 'prospect'
      UNION ALL
      SELECT n FROM crm.contact_count_changes WHERE org_id = $1 AND status <> 'prospect') counted) t
  LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM crm.contacts WHERE org_id = $1 AND status <> 'prospect'
    ORDER BY lower(name) ASC, id ASC LIMIT $2 OFFSET $3) p ON true`;

export const CONTACT_INSERT = `INSERT INTO crm.contacts (id, org_id, name, phone_number, email, status, company_name, address, notes, tags)
  VALUES ($1, $2, $3, NULL, $4, 'lead', NULL, NULL, NULL, '{}') RETURNING ${COLUMNS}`;

/** An event of about the size the service writes (the contact as protobuf in an envelope) goes in $2. */
export const EVENT_INSERT = `INSERT INTO ${outbox} (id, subject, payload) VALUES ($1, 'bench.contact.created', $2)`;

/** page and page_size as the API reads them (defaults 1 and 20, at most 100). */
export function pageOf(query: { page?: unknown; page_size?: unknown }): { page: number; pageSize: number } {
  const page = Math.max(1, Number(query.page ?? 1) || 1);
  const pageSize = Math.min(100, Math.max(1, Number(query.page_size ?? 20) || 20));
  return { page, pageSize };
}

/** The list answer from CONTACT_PAGE's rows. */
export function pageAnswer(rows: Record<string, unknown>[], page: number, pageSize: number) {
  const total = Number(rows[0]?.total ?? 0);
  const items = rows.filter((row) => row.id !== null).map(({ total: _, ...row }) => row);
  return { items, total, page, page_size: pageSize };
}
