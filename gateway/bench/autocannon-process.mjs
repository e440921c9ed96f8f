// One autocannon run through its API, in a process of its own: the options arrive as JSON in
// argv[2], the result leaves as JSON on stdout. `unique: true` puts a new id in place of each
// `[<id>]` of the body and headers per request (autocannon's own idReplacement declares a
// Content-Length for ids of another length than its id generator makes, and the server then
// waits for bytes that never come).
import { randomUUID } from "node:crypto";
import autocannon from "autocannon";

const { unique, ...options } = JSON.parse(process.argv[2]);
const fill = (text) => (typeof text === "string" ? text.replaceAll("[<id>]", randomUUID()) : text);
if (unique) {
  options.requests = [
    {
      setupRequest: (request) => ({
        ...request,
        body: fill(options.body),
        headers: Object.fromEntries(Object.entries(options.headers ?? {}).map(([name, value]) => [name, fill(value)])),
      }),
    },
  ];
}
const result = await autocannon(options);
process.stdout.write(JSON.stringify(result));
