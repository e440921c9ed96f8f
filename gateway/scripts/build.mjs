// Compiles every entry point (the embedded launcher, the gateway, each service, the operator CLIs)
// into one JavaScript file each under dist/, so nothing is transpiled at start-up. The project's
// TypeScript (gateway, services, platform, generated proto code) is bundled; third-party
// packages stay in node_modules and are loaded as they are. The dashboard (web/) is built with
// Vite into dist/web.
//
//   node gateway/scripts/build.mjs        build dist/
//   node gateway/scripts/build.mjs --if-stale   build only when a source is newer than dist/
//   node gateway/scripts/build.mjs --no-template   without the embedded database template
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const DIST = join(ROOT, "dist");
const STAMP = join(DIST, ".built");
const TEMPLATE = join(DIST, "pglite-template");
const TEMPLATE_TAR = `${TEMPLATE}.tar`;
const TEMPLATE_VERSION = join(DIST, "pglite-template.version");

/** The services: every folder under services/ with a src/main.ts (the registry's, which a test checks). */
const SERVICES = readdirSync(join(ROOT, "services"))
  .filter((name) => existsFile(join(ROOT, "services", name, "src", "main.ts")))
  .sort();

/** dist file name -> source entry point. */
export const ENTRIES = {
  embedded: "gateway/src/embedded.ts",
  gateway: "gateway/src/main.ts",
  apikey: "gateway/src/cli/apikey.ts",
  user: "gateway/src/cli/user.ts",
  "analytics-rebuild": "services/analytics/src/rebuild-main.ts",
  ...Object.fromEntries(SERVICES.map((name) => [name, `services/${name}/src/main.ts`])),
};

/**
 * Bundles that are not started by name but by the code in another: the embedded database
 * template's maker, and the knowledge base's text-extraction process (a child of comms).
 */
const HELPERS = {
  template: "services/platform/src/db/pglite.ts",
  "knowledge-extract": "services/comms/src/knowledge/extract-child.ts",
};

/** Folders and files whose change makes dist/ stale. */
const SOURCES = [
  "gateway/src",
  "services",
  "proto/gen",
  "web/src",
  "web/index.html",
  "web/portal.html",
  "web/vite.config.ts",
  "package.json",
  "package-lock.json",
];
const WEB = join(ROOT, "web");

function newestMtime(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules" || entry === "test" || entry === "dist") continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** Whether dist/ is missing or older than a source. */
export function isStale() {
  let built;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    return true;
  }
  for (const name of [...Object.keys(ENTRIES), ...Object.keys(HELPERS)])
    if (!existsFile(join(DIST, `${name}.js`))) return true;
  if (
    existsFile(join(WEB, "package.json")) &&
    !["index.html", "portal.html"].every((page) => existsFile(join(DIST, "web", page)))
  )
    return true;
  return SOURCES.some((source) => newestMtime(join(ROOT, source)) > built);
}

function existsFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Bundled code runs from dist/, but a module may locate files next to its source
 * (`new URL("../migrations", import.meta.url)`): give each one the URL of its own source file.
 */
const sourceUrls = {
  name: "source-urls",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return undefined;
      const fromDist = relative(DIST, args.path).split(sep).join("/");
      return {
        contents: text.replaceAll("import.meta.url", `new URL(${JSON.stringify(fromDist)}, import.meta.url).href`),
        loader: "ts",
      };
    });
  },
};

/**
 * The project's own packages are bundled; every other package is loaded from node_modules at
 * run time. One that a workspace keeps in its own node_modules (another version than the root's)
 * is imported by its path relative to dist/, so it is the same copy the sources use.
 */
const thirdPartyExternal = {
  name: "third-party-external",
  setup(build) {
    const rootModules = join(ROOT, "node_modules") + sep;
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith("@voiceops/") || args.pluginData?.resolving) return undefined;
      if (args.path.startsWith("node:")) return { path: args.path, external: true };
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: { resolving: true },
      });
      if (resolved.errors.length > 0 || resolved.external || !resolved.path || resolved.path.startsWith(rootModules))
        return { path: args.path, external: true };
      return { path: `./${relative(DIST, resolved.path).split(sep).join("/")}`, external: true };
    });
  },
};

function pgliteVersion() {
  return JSON.parse(readFileSync(join(ROOT, "node_modules/@electric-sql/pglite/package.json"), "utf8")).version;
}

/**
 * The template a new embedded database starts from (see services/platform/src/db/pglite.ts):
 * made when missing or made by another PGlite version, which takes as long as one initdb.
 */
export async function buildPgliteTemplate() {
  const version = pgliteVersion();
  if (
    existsFile(TEMPLATE_TAR) &&
    existsFile(TEMPLATE_VERSION) &&
    readFileSync(TEMPLATE_VERSION, "utf8").trim() === version
  )
    return false;
  dropTemplate();
  const { makePgliteTemplate } = await import(pathToFileURL(join(DIST, "template.js")).href);
  const building = `${TEMPLATE}.tmp`;
  rmSync(building, { recursive: true, force: true });
  await makePgliteTemplate(building, `${TEMPLATE_TAR}.tmp`);
  renameSync(building, TEMPLATE);
  renameSync(`${TEMPLATE_TAR}.tmp`, TEMPLATE_TAR);
  writeFileSync(TEMPLATE_VERSION, `${version}\n`);
  return true;
}

function dropTemplate() {
  rmSync(TEMPLATE, { recursive: true, force: true });
  rmSync(TEMPLATE_TAR, { force: true });
  rmSync(TEMPLATE_VERSION, { force: true });
}

/** Drops a template another PGlite version made (a start then runs initdb instead). */
function dropStaleTemplate() {
  const recorded = existsFile(TEMPLATE_VERSION) ? readFileSync(TEMPLATE_VERSION, "utf8").trim() : "";
  if (recorded !== pgliteVersion()) dropTemplate();
}

/**
 * The dashboard (web/) with Vite into dist/web, without source maps. Skipped with a warning
 * where Vite is not installed (an install without devDependencies): the API runs without it.
 */
async function buildDashboard() {
  let vite;
  try {
    vite = await import("vite");
  } catch {
    process.stderr.write("vite is not installed: the dashboard (/app) is not built\n");
    return;
  }
  await vite.build({ root: WEB, configFile: join(WEB, "vite.config.ts"), logLevel: "warn", mode: "production" });
}

export async function build() {
  const esbuild = await import("esbuild");
  const started = Date.now();
  mkdirSync(DIST, { recursive: true });
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: Object.entries({ ...ENTRIES, ...HELPERS }).map(([out, source]) => ({ out, in: source })),
    outdir: DIST,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    // ESM for the entry points' top-level await. No keepNames: it renames nothing our logs read
    // (esbuild renames only colliding functions, never our classes), and it wraps every closure
    // the code makes in a __name call at run time.
    keepNames: false,
    legalComments: "none",
    // Code that starts one of these bundles tells it is running from dist/ by this.
    define: { VOICEOPS_BUNDLED: "true" },
    logLevel: "warning",
    plugins: [thirdPartyExternal, sourceUrls],
  });
  // esbuild's service process would otherwise live as long as the process that built: a server
  // started after an edit (start.mjs builds first) kept it as a child for its whole life.
  await esbuild.stop();
  await buildDashboard();
  dropStaleTemplate();
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  return Date.now() - started;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (!process.argv.includes("--if-stale") || isStale()) {
    const ms = await build();
    process.stdout.write(`built dist/ in ${ms} ms\n`);
  }
  if (!process.argv.includes("--no-template")) {
    const started = Date.now();
    if (await buildPgliteTemplate())
      process.stdout.write(`made the embedded database template in ${Date.now() - started} ms\n`);
  }
}
