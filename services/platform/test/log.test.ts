import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectError, Code } from "@connectrpc/connect";
import { createLogger, openDatabase, readInfraConfig, type Database } from "../src/index.js";
import { testEnv } from "../src/testing/index.js";

// Error logs name what failed, never the data: PostgreSQL errors carry the statement's
// parameters (PGlite), the failing row (`detail`) and the connection object; none is logged.

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger("info", "log-test", stream) };
}

const PHONE = "+15550104242";
const NAME = "Customer Jane Secretname";

const databases: [string, () => Promise<Database>][] = [
  [
    "embedded PostgreSQL (PGlite)",
    () =>
      openDatabase(readInfraConfig(testEnv({ DATABASE_URL: "" })), {
        name: "log-test",
        poolSize: 1,
        logger: capture().logger,
        inMemory: true,
      }),
  ],
];
if (process.env.DATABASE_URL) {
  databases.push([
    "PostgreSQL",
    () => openDatabase(readInfraConfig(testEnv()), { name: "log-test", poolSize: 2, logger: capture().logger }),
  ]);
}

describe.each(databases)("error logs on %s", (_name, open) => {
  let db: Database;
  const table = `log_test_${process.pid}`;
  beforeAll(async () => {
    db = await open();
    await db.exec(`CREATE TABLE IF NOT EXISTS ${table} (phone text PRIMARY KEY, name text NOT NULL, born date)`);
    await db.query(`INSERT INTO ${table} (phone, name) VALUES ($1, $2)`, [PHONE, NAME]);
  });
  afterAll(async () => {
    await db?.exec(`DROP TABLE IF EXISTS ${table}`);
    await db?.close();
  });

  async function failure(sql: string, params: unknown[]): Promise<unknown> {
    return db.query(sql, params).then(
      () => expect.fail("the statement should fail"),
      (error: unknown) => error,
    );
  }

  it("never contain the statement's parameters nor the failing row", async () => {
    const errors = [
      await failure(`INSERT INTO ${table} (phone, name) VALUES ($1, $2)`, [PHONE, NAME]), // unique violation: detail names the row
      await failure(`INSERT INTO ${table} (phone, name, born) VALUES ($1, $2, $3)`, [
        "+15550109999",
        NAME,
        `${NAME} is not a date`,
      ]), // data exception quoting the value
    ];
    const { lines, logger } = capture();
    for (const error of errors) {
      logger.error({ err: error }, "statement failed");
      // Wrapped, as a service answers it.
      logger.error(
        { err: new ConnectError("internal error", Code.Internal, undefined, undefined, error) },
        "rpc failed",
      );
    }
    expect(lines).toHaveLength(4);
    const text = lines.join("\n");
    expect(text).not.toContain("5550104242");
    expect(text).not.toContain("5550109999");
    expect(text).not.toContain("Secretname");
    const first = JSON.parse(lines[0] as string) as { err: Record<string, unknown> };
    expect(first.err).toMatchObject({ code: "23505", message: expect.stringContaining("duplicate key") });
    expect(first.err).not.toHaveProperty("detail");
    expect(first.err).not.toHaveProperty("params");
    expect(first.err).not.toHaveProperty("client");
    const second = JSON.parse(lines[2] as string) as { err: Record<string, unknown> };
    expect(second.err.code).toMatch(/^22/);
  });
});
