import { randomBytes, randomUUID } from "node:crypto";
import express from "express";
import pg from "pg";
import { CONTACT_BY_ID, CONTACT_INSERT, CONTACT_PAGE, EVENT_INSERT, orgId, pageAnswer, pageOf } from "./contact-sql.js";

// The baseline the benchmark compares the gateway with: a plain Express 5 + pg process doing
// the same SQL as the CRM service (contact-sql.ts), with nothing in between (no API key, no
// validation, no RPC).
//   GET  /api/contacts/:id           the contact by id and organization
//   GET  /api/contacts?page_size=N   one page by name and its total
//   POST /api/contacts               the insert plus one outbox row, in one transaction
// Environment: DATABASE_URL, PORT, DB_POOL_SIZE, and contact-sql.ts's.

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
const app = express();
app.disable("x-powered-by");

app.get("/api/contacts/:id", async (req, res, next) => {
  try {
    const result = await pool.query(CONTACT_BY_ID, [orgId, req.params.id]);
    if (result.rows.length === 0) return void res.status(404).json({ detail: "Contact not found" });
    res.json(result.rows[0]);
  } catch (error) {
    next(error);
  }
});

app.get("/api/contacts", async (req, res, next) => {
  try {
    const { page, pageSize } = pageOf(req.query);
    const result = await pool.query(CONTACT_PAGE, [orgId, pageSize, (page - 1) * pageSize]);
    res.json(pageAnswer(result.rows, page, pageSize));
  } catch (error) {
    next(error);
  }
});

app.post("/api/contacts", express.json(), async (req, res, next) => {
  const client = await pool.connect();
  try {
    const body = req.body as { name?: string; email?: string };
    await client.query("BEGIN");
    const inserted = await client.query(CONTACT_INSERT, [randomUUID(), orgId, body.name ?? null, body.email ?? null]);
    await client.query(EVENT_INSERT, [randomUUID(), randomBytes(180)]);
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
