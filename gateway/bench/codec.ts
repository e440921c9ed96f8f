import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { configureTextEncoding, getTextEncoding } from "@bufbuild/protobuf/wire";
import { isoInstant, useNodeUtf8Encoder, writeMessage } from "@voiceops/platform";
import {
  ContactSchema,
  ContactStatus,
  ListContactsResponseSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";

// npm run bench:codec [-- rounds]
// The encodings of a page of 50 contacts, each against the stock way, alternating round by
// round in one process: the crm's toBinary with protobuf-es's TextEncoder and with the `utf8`
// fast path (fast-path/utf8-encoder.ts), and timestamps as the gateway's JSON writer writes them
// (isoInstant) and as toISOString does. Reports µs per page (or per 100 timestamps), the median
// and the fastest of the rounds.

const ROUNDS = Number(process.argv[2] ?? 9);
const CALLS = 2_000;
const DAY_MS = 24 * 60 * 60 * 1000;
const start = Date.parse("2026-10-01T00:00:00Z");
const page = create(ListContactsResponseSchema, {
  items: Array.from({ length: 50 }, (_, i) =>
    create(ContactSchema, {
      id: crypto.randomUUID(),
      name: `Contact ${i}`,
      phoneNumber: `+1555${String(1_000_000 + i).padStart(7, "0")}`,
      email: `c${i}@bench.example`,
      status: ContactStatus.LEAD,
      companyName: `Company ${i % 100}`,
      createdAt: timestampFromMs(start + i * 7_654_321),
      updatedAt: timestampFromMs(start + i * 9_876_543),
    }),
  ),
  total: 20_000,
  page: 1,
  pageSize: 50,
});
// A page's 100 timestamps, spread over a month as a listing's are.
const instants = Array.from({ length: 100 }, (_, i) => start + ((i * 2_654_435_761) % (30 * DAY_MS)));

let sink = 0;
const perCall = (fn: () => number): number => {
  const began = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) sink += fn();
  return Number(process.hrtime.bigint() - began) / CALLS / 1000;
};

const stockText = getTextEncoding();
useNodeUtf8Encoder();
const fastText = getTextEncoding();
const cases = {
  "toBinary, TextEncoder (stock)": () => {
    configureTextEncoding(stockText);
    return perCall(() => toBinary(ListContactsResponseSchema, page).length);
  },
  "toBinary, Buffer.from (utf8)": () => {
    configureTextEncoding(fastText);
    return perCall(() => toBinary(ListContactsResponseSchema, page).length);
  },
  "100 timestamps, toISOString": () =>
    perCall(() => instants.reduce((n, ms) => n + new Date(ms).toISOString().length, 0)),
  "100 timestamps, isoInstant": () => perCall(() => instants.reduce((n, ms) => n + isoInstant(ms).length, 0)),
  "the page as REST JSON": () => perCall(() => JSON.stringify(writeMessage(ListContactsResponseSchema, page)).length),
};
const times = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++)
  for (const [name, run] of Object.entries(cases)) times.get(name)?.push(run());

console.log(`| encoding (a page of 50 contacts) | median µs | fastest µs |\n|---|---|---|`);
for (const [name, values] of times) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(`| ${name} | ${sorted[sorted.length >> 1]?.toFixed(1)} | ${sorted[0]?.toFixed(1)} |`);
}
if (sink === 0) console.log("(nothing was encoded)");
