// `npm start` and the other start scripts: runs one compiled entry point from dist/, building
// dist/ first when it is missing or older than the sources (a fresh clone, or after an edit).
//
//   node gateway/scripts/start.mjs <embedded|gateway|apikey|user|analytics-rebuild|<service>> [args...]
//
// A service's entry point is services/<service>/src/main.ts, compiled to dist/<service>.js.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, DIST, ENTRIES, isStale } from "./build.mjs";

const name = process.argv[2] ?? "";
if (!(name in ENTRIES)) {
  process.stderr.write(`usage: start.mjs <${Object.keys(ENTRIES).join("|")}> [args...]\n`);
  process.exit(2);
}
// The entry point sees its own arguments only, as if it had been run directly.
process.argv.splice(2, 1);
if (isStale()) {
  const ms = await build();
  process.stderr.write(`compiled the sources into dist/ in ${ms} ms\n`);
}
await import(pathToFileURL(join(DIST, `${name}.js`)).href);
