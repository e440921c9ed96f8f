import { cpus, loadavg } from "node:os";
import express from "express";
import { plainJsonBody } from "../src/mcp/body.js";
import { median, parseArgs } from "./cli.js";
import { autocannon, PINNED } from "./load-generator.js";
import { cpuOf, portAllocator, startServer, stopAllServers, waitFor, waitForQuiet } from "./processes.js";

// npm run bench:mcp-body [-- --seconds 5 --rounds 6 --ports 20700]
// Reading an /mcp request's body: express.json (body-parser) against plainJsonBody, the reader
// of the plain kind of body (gateway/src/mcp/body.ts), each alone in an Express app that answers
// 204 once the body is read, and a route that discards the body unread (the rest of a request's
// cost, to take away). A server process (core 0) is posted a search_contacts call by autocannon
// (core 1); reports the server's CPU per request, medians of interleaved rounds.

const opts = parseArgs(process.argv.slice(2));
const LIMIT = 1024 * 1024;

if (opts.serve) {
  const app = express();
  const done = (_req: express.Request, res: express.Response) => res.status(204).end();
  app.post("/library", express.json({ limit: LIMIT }), done);
  app.post("/plain", plainJsonBody(express.json({ limit: LIMIT })), done);
  app.post("/unread", (req, res) => {
    req.resume();
    req.on("end", () => done(req, res));
  });
  app.get("/ready", done);
  app.listen(Number(opts.serve), "127.0.0.1");
} else {
  const SECONDS = Number(opts.seconds ?? 5);
  const ROUNDS = Number(opts.rounds ?? 6);
  const port = await portAllocator(opts.ports ? Number(opts.ports) : undefined)();
  const server = startServer("bodies", ["--import", "tsx", import.meta.filename, "--serve", String(port)], {});
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "search_contacts", arguments: { query: "+15550500000" } },
  });
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const readers = ["library", "plain", "unread"] as const;
  const cpu: Record<string, number[]> = { library: [], plain: [], unread: [] };
  try {
    await waitFor(`http://127.0.0.1:${port}/ready`, server);
    const run = async (reader: string, seconds: number) => {
      await waitForQuiet(30_000);
      const before = cpuOf(server);
      const result = await autocannon(`http://127.0.0.1:${port}/${reader}`, {
        method: "POST",
        headers,
        body,
        seconds,
        connections: 50,
      });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${reader}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      return ((cpuOf(server) - before) * 1000) / Math.max(1, result.rps * seconds);
    };
    for (const reader of readers) await run(reader, 3);
    console.log(
      `${cpus().length} cores, ${PINNED ? "server on core 0, autocannon on core 1" : "not pinned"}; ${SECONDS} s runs`,
    );
    console.log(
      "| round | load | express.json µs/req | plainJsonBody µs/req | unread µs/req | reading: express.json / plainJsonBody |",
    );
    console.log("|---|---|---|---|---|---|");
    for (let round = 1; round <= ROUNDS; round++) {
      const order: readonly string[] = round % 2 === 1 ? readers : [...readers].reverse();
      for (const reader of order) cpu[reader]?.push(await run(reader, SECONDS));
      const [library = 0, plain = 0, unread = 0] = readers.map((reader) => cpu[reader]?.at(-1) ?? 0);
      console.log(
        `| ${round} | ${(loadavg()[0] ?? 0).toFixed(1)} | ${library.toFixed(1)} | ${plain.toFixed(1)} | ${unread.toFixed(1)} | ${((library - unread) / (plain - unread)).toFixed(2)} |`,
      );
    }
    const at = (reader: string, i: number) => cpu[reader]?.[i] ?? 0;
    const rounds = cpu.library?.map((_, i) => i) ?? [];
    const requestRatio = median(rounds.map((i) => at("library", i) / at("plain", i)));
    const library = median(rounds.map((i) => at("library", i) - at("unread", i)));
    const plain = median(rounds.map((i) => at("plain", i) - at("unread", i)));
    console.log(
      `median: a request costs ${requestRatio.toFixed(2)}x the CPU with express.json; reading the body ${library.toFixed(0)} µs against ${plain.toFixed(0)} µs`,
    );
  } finally {
    await stopAllServers();
  }
}
