import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { type ConnectRouter, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { connectUnaryTransport } from "@voiceops/platform";
import { ownerCallHeaders, plainGrpcClient, startLoopbackRpcServer } from "@voiceops/platform/testing";
import { ContactSchema, ContactStatus, CrmService } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";

// npm run bench:rpc [-- seconds rounds]
// The cost of one unary call between two components, by client and server implementation: a
// server process (core 0) answers GetContact from memory (no database, so only the RPC costs),
// client processes (core 1) call it from 50 concurrent loops. Reports calls/s and the CPU time
// per call of client and server, medians of interleaved rounds. This is what chose the
// transport the gateway and the services use (platform/src/fast-path/connect-http1-client.ts).

const TOKEN = "bench-internal-token";
const ORG = "018f0000-0000-7000-8000-000000000001";
const CONTACT_ID = "018f0000-0000-7000-8000-000000000002";
const argv = process.argv.slice(2);
const role = argv[0] === "server" || argv[0] === "client" ? argv[0] : "main";
const rest = role === "main" ? argv : argv.slice(1);
const PINNED = cpus().length > 1 && spawnSync("taskset", ["-c", "0", "true"]).status === 0;

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function serve(): Promise<void> {
  const contact = create(ContactSchema, {
    id: CONTACT_ID,
    name: "Jane Doe",
    phoneNumber: "+15550102000",
    email: "jane@example.com",
    status: ContactStatus.LEAD,
    companyName: "Doe Plumbing",
    tags: ["vip"],
    createdAt: timestampFromDate(new Date()),
    updatedAt: timestampFromDate(new Date()),
  });
  const common = {
    internalToken: TOKEN,
    routes: (router: ConnectRouter) => {
      router.service(CrmService, { getContact: async () => ({ contact }) });
    },
  };
  const direct = await startLoopbackRpcServer({ ...common, directUnary: true });
  const connect = await startLoopbackRpcServer({ ...common, directUnary: false });
  process.stdout.write(`${JSON.stringify({ direct: direct.url, connect: connect.url })}\n`);
}

async function client(kind: string, url: string, seconds: number): Promise<void> {
  const headers = ownerCallHeaders(TOKEN, { orgId: ORG, requestId: "bench" });
  let call: () => Promise<unknown>;
  if (kind === "grpc-js") {
    const c = plainGrpcClient(url);
    call = () => c.call(CrmService.method.getContact, { contactId: CONTACT_ID }, headers);
  } else {
    const transports: Record<string, () => Transport> = {
      "connect-unary": () => connectUnaryTransport(url, { fallback: () => createGrpcTransport({ baseUrl: url }) }),
      "connect-http1": () =>
        createConnectTransport({ baseUrl: url, httpVersion: "1.1", useBinaryFormat: true, acceptCompression: [] }),
      "connect-grpc": () => createGrpcTransport({ baseUrl: url, acceptCompression: [] }),
      "connect-protocol": () =>
        createConnectTransport({ baseUrl: url, httpVersion: "2", useBinaryFormat: true, acceptCompression: [] }),
    };
    const c = createClient(CrmService, (transports[kind] ?? transports["connect-unary"]!)());
    call = () => c.getContact({ contactId: CONTACT_ID }, { headers, timeoutMs: 10_000 });
  }
  for (let i = 0; i < 200; i++) await call();
  const cpu0 = process.cpuUsage();
  const end = performance.now() + seconds * 1000;
  let calls = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (performance.now() < end) {
        try {
          await call();
          calls++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`${JSON.stringify({ calls, errors, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
  process.exit(0);
}

function run(args: string[], core: string): Promise<string> {
  const command = PINNED ? ["taskset", "-c", core, process.execPath, ...args] : [process.execPath, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(command[0] ?? "", command.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
  });
}

async function main(): Promise<void> {
  const seconds = Number(rest[0] ?? 5);
  const rounds = Number(rest[1] ?? 3);
  const script = new URL(import.meta.url).pathname;
  const args = ["--import", "tsx", script];
  const server = spawn(
    PINNED ? "taskset" : process.execPath,
    PINNED ? ["-c", "0", process.execPath, ...args, "server"] : [...args, "server"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const urls = await new Promise<{ direct: string; connect: string }>((resolve) =>
    server.stdout.once("data", (chunk: Buffer) => resolve(JSON.parse(chunk.toString()))),
  );
  const pairs: [string, string, string][] = [
    ["Connect gRPC transport -> Connect handler (before)", "connect-grpc", urls.connect],
    ["Connect protocol (binary, HTTP/2) -> Connect handler", "connect-protocol", urls.connect],
    ["@grpc/grpc-js client -> Connect handler", "grpc-js", urls.connect],
    [
      "stock: Connect protocol (binary, HTTP/1.1) -> Connect handler (FAST_PATH without rpc)",
      "connect-http1",
      urls.connect,
    ],
    ["Connect protocol (binary, HTTP/1.1) -> fast-path server", "connect-http1", urls.direct],
    ["fast-path client (HTTP/1.1 pool) -> Connect handler", "connect-unary", urls.connect],
    ["fast path: fast-path client -> fast-path server (FAST_PATH's rpc)", "connect-unary", urls.direct],
  ];
  const results = new Map<string, { rate: number; clientUs: number; serverUs: number }[]>();
  const loads: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const [name, kind, url] of pairs) {
      loads.push(loadavg()[0] ?? 0);
      const before = cpuMs(server.pid ?? 0);
      const result = JSON.parse(await run([...args, "client", kind, url, String(seconds)], "1")) as {
        calls: number;
        errors: number;
        cpuMs: number;
      };
      const serverMs = cpuMs(server.pid ?? 0) - before;
      const list = results.get(name) ?? [];
      list.push({
        rate: result.calls / seconds,
        clientUs: (result.cpuMs * 1000) / result.calls,
        serverUs: (serverMs * 1000) / result.calls,
      });
      results.set(name, list);
    }
  }
  server.kill("SIGTERM");
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? Number.NaN;
  process.stdout.write(`| client -> server | calls/s | client CPU µs/call | server CPU µs/call |\n|---|---|---|---|\n`);
  for (const [name, list] of results) {
    process.stdout.write(
      `| ${name} | ${median(list.map((r) => r.rate)).toFixed(0)} | ${median(list.map((r) => r.clientUs)).toFixed(0)} | ${median(list.map((r) => r.serverUs)).toFixed(0)} |\n`,
    );
  }
  process.stdout.write(
    `\n${rounds} interleaved rounds of ${seconds} s; load average median ${median(loads).toFixed(1)} on ${cpus().length} cores\n`,
  );
}

if (role === "server") await serve();
else if (role === "client") await client(rest[0] ?? "direct", rest[1] ?? "", Number(rest[2] ?? 5));
else await main();
