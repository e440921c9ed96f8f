import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Node's flags in the `npm start` script of package.json, so a benchmark runs the embedded
 * system as it ships (read from there: the script is their one home).
 */
export function embeddedNodeFlags(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
  const [, flags = ""] = /\bnode\s+((?:--\S+\s+)*)/.exec(manifest.scripts.start ?? "") ?? [];
  return flags.split(/\s+/).filter(Boolean);
}
