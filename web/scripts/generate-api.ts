import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { apiTypes } from "./api-types.js";

const target = fileURLToPath(new URL("../src/api/schema.d.ts", import.meta.url));
writeFileSync(target, await apiTypes());
process.stdout.write(`wrote ${target}\n`);
