import { randomBytes, randomUUID } from "node:crypto";
import Fastify from "fastify";
import pg from "pg";
import { CONTACT_BY_ID, CONTACT_INSERT, CONTACT_PAGE, EVENT_INSERT, orgId, pageAnswer, pageOf } from "./contact-sql.js";

// The second baseline: Fastify 5 + pg with named prepared statements, no auth, no logging: what
// an engineer picking a stack for throughput per core compares with. The same routes and SQL as
// express-pg.ts (contact-sql.ts). Environment: DATABASE_URL, PORT, DB_POOL_SIZE, and
// contact-sql.ts's.

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
const app = Fastify({ logger: false });

app.get<{ Params: { id: string } }>("/api/contacts/:id", async (req, reply) => {
  const result = await pool.query({ name: "contact_by_id", text: CONTACT_BY_ID, values: [orgId, req.params.id] });
  if (result.rows.length === 0) return reply.code(404).send({ detail: "Contact not found" });
  return result.rows[0];
});

app.get<{ Querystring: { page?: string; page_size?: string } }>("/api/contacts", async (req) => {
  const { page, pageSize } = pageOf(req.query);
  const result = await pool.query({
    name: "contact_page",
    text: CONTACT_PAGE,
    values: [orgId, pageSize, (page - 1) * pageSize],
  });
  return pageAnswer(result.rows, page, pageSize);
});

app.post<{ Body: { name?: string; email?: string } }>("/api/contacts", async (req, reply) => {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const inserted = await client.query({
      name: "contact_insert",
      text: CONTACT_INSERT,
      values: [randomUUID(), orgId, req.body?.name ?? null, req.body?.email ?? null],
    });
    await client.query({ name: "contact_event", text: EVENT_INSERT, values: [randomUUID(), randomBytes(180)] });
    await client.query("COMMIT");
    return reply.code(201).send(inserted.rows[0]);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
});

await app.listen({ port: Number(process.env.PORT ?? 8091), host: "127.0.0.1" });
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
  void app.close().then(() => pool.end());
});
