import { randomBytes, randomUUID } from "node:crypto";
import express from "express";
import pg from "pg";

// The baseline the benchmark compares the gateway with: a plain Express 5 + pg process doing
// the same SQL as the CRM service, with nothing in between (no API key, no validation, no RPC).
//   GET  /api/contacts/:id  the contact by id and organization
//   POST /api/contacts      the insert plus one outbox row, in one transaction
// Environment: DATABASE_URL, PORT, BENCH_ORG_ID, DB_POOL_SIZE, BENCH_OUTBOX (the outbox table,
// crm.outbox by default; the benchmark gives it one of the same shape that no relay reads).

const COLUMNS =
  "id, org_id, name, phone_number, email, status, company_name, address, notes, tags, created_at, updated_at";
const orgId = process.env.BENCH_ORG_ID ?? "";
const outbox = process.env.BENCH_OUTBOX ?? "crm.outbox";
if (!/^[a-z_]+\.[a-z_]+$/.test(outbox)) throw new Error(`BENCH_OUTBOX must be schema.table, got "${outbox}"`);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
const app = express();
app.disable("x-powered-by");

app.get("/api/contacts/:id", async (req, res, next) => {
  try {
    const result = await pool.query(`SELECT ${COLUMNS} FROM crm.contacts WHERE org_id = $1 AND id = $2`, [
      orgId,
      req.params.id,
    ]);
    if (result.rows.length === 0) return void res.status(404).json({ detail: "Contact not found" });
    res.json(result.rows[0]);
  } catch (error) {
    next(error);
  }
});

app.post("/api/contacts", express.json(), async (req, res, next) => {
  const client = await pool.connect();
  try {
    const body = req.body as { name?: string; email?: string };
    await client.query("BEGIN");
    const inserted = await client.query(
      `INSERT INTO crm.contacts (id, org_id, name, phone_number, email, status, company_name, address, notes, tags)
       VALUES ($1, $2, $3, NULL, $4, 'lead', NULL, NULL, NULL, '{}') RETURNING ${COLUMNS}`,
      [randomUUID(), orgId, body.name ?? null, body.email ?? null],
    );
    // An event of about the size the service writes (the contact as protobuf in an envelope).
    await client.query(`INSERT INTO ${outbox} (id, subject, payload) VALUES ($1, 'bench.contact.created', $2)`, [
      randomUUID(),
      randomBytes(180),
    ]);
    await client.query("COMMIT");
    res.status(201).json(inserted.rows[0]);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    next(error);
  } finally {
    client.release();
  }
});

const server = app.listen(Number(process.env.PORT ?? 8090), "127.0.0.1", () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => {
  server.close();
  server.closeIdleConnections();
  void pool.end();
});
