import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import * as esbuild from "esbuild";
import { describe, expect, inject, it } from "vitest";
import { SERVICE_NAMES, SERVICES } from "@voiceops/platform/registry";
import { REPO_ROOT } from "@voiceops/platform/testing";
import { API_SERVICES } from "../src/services.js";
import { loadServiceModule } from "../src/system.js";

// The registry (services/platform/src/registry.ts) is the one list of services: the launchers,
// the gateway, the build and the deploy checks read it, and these checks keep the rest of the
// repository (service folders, scripts, docs) from growing a list of its own.

const SERVICES_DIR = join(REPO_ROOT, "services");

describe("the registry of services", () => {
  it("names each service once, with a gRPC port and an ops port (+1000) of its own", () => {
    for (const name of SERVICE_NAMES)
      expect(name, "a lower-case identifier (a folder, a schema, an env prefix)").toMatch(/^[a-z][a-z0-9]*$/);
    expect(new Set(SERVICE_NAMES).size).toBe(SERVICES.length);
    const ports = SERVICES.flatMap((s) => [s.port, s.port + 1000]);
    expect(new Set(ports).size, "ports in use twice").toBe(ports.length);
  });

  it("has a folder per service and a service per folder (services/<name>/src/main.ts, run alone)", () => {
    const folders = readdirSync(SERVICES_DIR).filter((name) => existsSync(join(SERVICES_DIR, name, "src", "main.ts")));
    expect(folders.sort()).toEqual([...SERVICE_NAMES].sort());
  });

  it.each(SERVICE_NAMES)(
    "finds %s's module by the convention of its folder (src/index.ts exports <name>Service)",
    async (name) => {
      const module = await loadServiceModule(name);
      expect(module.name).toBe(name);
    },
  );

  it("gives the gateway each registered proto service once, and runs exactly the registered services", () => {
    expect(API_SERVICES.map((s) => s.typeName)).toEqual(SERVICES.flatMap((s) => s.api.map((api) => api.typeName)));
    expect(new Set(API_SERVICES).size).toBe(API_SERVICES.length);
    expect(Object.keys(inject("serviceUrls")).sort()).toEqual([...SERVICE_NAMES].sort());
  });

  it("keeps every service's code out of the distributed gateway's bundle", async () => {
    // The project's own packages are followed, third-party ones left out: what the gateway loads.
    const result = await esbuild.build({
      absWorkingDir: REPO_ROOT,
      entryPoints: ["gateway/src/main.ts"],
      bundle: true,
      write: false,
      metafile: true,
      platform: "node",
      format: "esm",
      logLevel: "silent",
      plugins: [
        {
          name: "own-packages-only",
          setup(build) {
            build.onResolve({ filter: /^[^./]/ }, (args) =>
              args.path.startsWith("@voiceops/") ? undefined : { path: args.path, external: true },
            );
          },
        },
      ],
    });
    const inputs = Object.keys(result.metafile.inputs).map((path) =>
      relative(REPO_ROOT, join(REPO_ROOT, path)).split(sep).join("/"),
    );
    expect(inputs.filter((path) => SERVICE_NAMES.some((name) => path.startsWith(`services/${name}/`)))).toEqual([]);
    expect(inputs).toContain("services/platform/src/registry.ts");
  });

  it("is the only list: no start script, workspace, Dockerfile line or docs enumerate the services", () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      workspaces: string[];
      scripts: Record<string, string>;
    };
    expect(pkg.workspaces).toContain("services/*");
    const gateway = JSON.parse(readFileSync(join(REPO_ROOT, "gateway", "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    for (const name of SERVICE_NAMES) {
      expect(
        pkg.scripts[`start:${name}`],
        `package.json start:${name} (npm run start:service -- ${name} runs it)`,
      ).toBeUndefined();
      expect(pkg.workspaces, "package.json workspaces").not.toContain(`services/${name}`);
      expect(
        gateway.dependencies[`@voiceops/${name}`],
        "gateway/package.json: the gateway loads no service package",
      ).toBeUndefined();
    }
    const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");
    for (const name of SERVICE_NAMES)
      expect(dockerfile, `Dockerfile names ${name}`).not.toMatch(new RegExp(`services/${name}\\b`));
  });

  it("is what the README and docs/contributing.md's 'Adding a service' point to", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const contributing = readFileSync(join(REPO_ROOT, "docs", "contributing.md"), "utf8");
    expect(readme.slice(readme.indexOf("## Contributing"))).toContain("services/platform/src/registry.ts");
    const section = contributing.slice(contributing.indexOf("## Adding a service"));
    expect(section).toContain("services/platform/src/registry.ts");
    for (const gone of ["SERVICE_PORTS", "SERVICE_MODULES", "defaultPort", "start:<name>"]) {
      expect(readme, `README still mentions ${gone}`).not.toContain(gone);
      expect(contributing, `docs/contributing.md still mentions ${gone}`).not.toContain(gone);
    }
  });
});
