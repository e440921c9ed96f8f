import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Node's flags in an npm script of package.json (`start`: the embedded system; `start:service`
 * and `start:gateway`: the distributed processes), so a benchmark runs each system as it ships
 * (read from there: the scripts are their one home, and the image's NODE_OPTIONS is checked
 * against them).
 */
export function scriptNodeFlags(root: string, script: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
  const [, flags = ""] = /\bnode\s+((?:--\S+\s+)*)/.exec(manifest.scripts[script] ?? "") ?? [];
  return flags.split(/\s+/).filter(Boolean);
}
