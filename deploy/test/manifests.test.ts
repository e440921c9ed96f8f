// Offline checks of the Kubernetes manifests under deploy/: every document is validated
// against the Kubernetes OpenAPI schema (kubernetes-models), kustomizations only reference
// files that exist, and the deployment policies (probes, resources, hardening, wiring between
// Deployments, Services, PDBs, the HPA, the ConfigMap and the Secret) hold for the base and
// for each overlay rendered with its patches. No cluster and no kubectl are needed.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { Deployment, type IDeployment } from "kubernetes-models/apps/v1/Deployment";
import {
  HorizontalPodAutoscaler,
  type IHorizontalPodAutoscaler,
} from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { PodDisruptionBudget, type IPodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap, type IConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Namespace, type INamespace } from "kubernetes-models/v1/Namespace";
import { Service, type IService } from "kubernetes-models/v1/Service";
import { SERVICES, serviceAddresses } from "@voiceops/platform/registry";
// The benchmark reads the scripts' flags the same way: one parser for both.
import { scriptNodeFlags } from "../../gateway/bench/node-flags.js";

type Json = Record<string, unknown>;

const DEPLOY_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BASE_DIR = join(DEPLOY_DIR, "base");
const OVERLAYS_DIR = join(DEPLOY_DIR, "overlays");
const KUSTOMIZE_COMPONENTS_DIR = join(DEPLOY_DIR, "components");

// The services are the registry's (services/platform/src/registry.ts): one manifest each.
const SERVICE_PORTS: Record<string, number> = Object.fromEntries(SERVICES.map((s) => [s.name, s.port]));
const COMPONENTS = ["gateway", ...Object.keys(SERVICE_PORTS)];
const CONFIG_MAP = "voiceops-config";
const SECRET = "voiceops-secrets";
const SECRET_KEYS = ["DATABASE_URL", "ADMIN_TOKEN", "INTERNAL_TOKEN", "INTERNAL_API_KEY"];
const BASE_IMAGE = "voiceops:latest";
// Every process finds every service through this one setting, so a new service adds no env.
const PEER_ADDRS = ["SERVICE_ADDR_TEMPLATE"];
const REQUIRED_ENV: Record<"gateway" | "service", string[]> = {
  gateway: [
    "PORT",
    "ADMIN_PORT",
    "ADMIN_HOST",
    "DATABASE_URL",
    "NATS_URL",
    "ADMIN_TOKEN",
    "INTERNAL_TOKEN",
    "LOG_LEVEL",
    "RATE_LIMIT_PER_MINUTE",
    ...PEER_ADDRS,
  ],
  service: [
    "GRPC_HOST",
    "GRPC_PORT",
    "OPS_PORT",
    "DATABASE_URL",
    "NATS_URL",
    "INTERNAL_TOKEN",
    "LOG_LEVEL",
    "DB_POOL_SIZE",
    ...PEER_ADDRS,
  ],
};

// ---------------------------------------------------------------------------------------------
// Loading

interface Doc {
  file: string; // relative to deploy/, for messages
  index: number;
  body: Json;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return yamlFiles(path);
      return /\.ya?ml$/.test(entry) ? [path] : [];
    });
}

function label(doc: Doc): string {
  const meta = isObject(doc.body.metadata) ? doc.body.metadata : {};
  return `${doc.file}#${doc.index} ${String(doc.body.kind)}/${String(meta.name)}`;
}

const parseErrors: string[] = [];
const docsByFile = new Map<string, Doc[]>();
const allFiles = [...yamlFiles(BASE_DIR), ...yamlFiles(KUSTOMIZE_COMPONENTS_DIR), ...yamlFiles(OVERLAYS_DIR)];
for (const path of allFiles) {
  const file = relative(DEPLOY_DIR, path);
  const docs: Doc[] = [];
  parseAllDocuments(readFileSync(path, "utf8")).forEach((parsed, index) => {
    for (const problem of [...parsed.errors, ...parsed.warnings])
      parseErrors.push(`${file}#${index}: ${problem.message}`);
    const body: unknown = parsed.toJS();
    if (body === null || body === undefined) return; // empty document, e.g. after a trailing ---
    if (!isObject(body)) parseErrors.push(`${file}#${index}: not a mapping`);
    else docs.push({ file, index, body });
  });
  docsByFile.set(path, docs);
}

const isKustomization = (path: string) => /^kustomization\.ya?ml$/.test(basename(path));

function kustomizationIn(dir: string): { path: string; body: Json } {
  const path = ["kustomization.yaml", "kustomization.yml"].map((name) => join(dir, name)).find((p) => existsSync(p));
  if (path === undefined) throw new Error(`${relative(DEPLOY_DIR, dir)}: no kustomization.yaml`);
  const body = docsByFile.get(path)?.[0]?.body;
  if (body === undefined) throw new Error(`${relative(DEPLOY_DIR, path)}: empty`);
  return { path, body };
}

function stringList(value: unknown, what: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === "string"))
    throw new Error(`${what} must be a list of strings`);
  return value;
}

function patchPaths(kustomization: Json): string[] {
  const patches = kustomization.patches;
  if (patches === undefined) return [];
  if (!Array.isArray(patches)) throw new Error("patches must be a list");
  return patches.map((p) => {
    if (!isObject(p) || typeof p.path !== "string")
      throw new Error("only file patches (`path:`) are supported by this test");
    return p.path;
  });
}

// ---------------------------------------------------------------------------------------------
// Schema validation: one kubernetes-models class per kind; validate() throws on schema errors.

const VALIDATORS: Record<string, (body: Json) => void> = {
  "apps/v1/Deployment": (b) => new Deployment(b as unknown as IDeployment).validate(),
  "v1/Service": (b) => new Service(b as unknown as IService).validate(),
  "v1/ConfigMap": (b) => new ConfigMap(b as unknown as IConfigMap).validate(),
  "v1/Namespace": (b) => new Namespace(b as unknown as INamespace).validate(),
  "policy/v1/PodDisruptionBudget": (b) => new PodDisruptionBudget(b as unknown as IPodDisruptionBudget).validate(),
  "autoscaling/v2/HorizontalPodAutoscaler": (b) =>
    new HorizontalPodAutoscaler(b as unknown as IHorizontalPodAutoscaler).validate(),
};

function validateSchema(doc: Doc): void {
  const key = `${String(doc.body.apiVersion)}/${String(doc.body.kind)}`;
  const validate = VALIDATORS[key];
  if (validate === undefined)
    throw new Error(`${label(doc)}: no schema for ${key}; add its kubernetes-models class to the test`);
  try {
    validate(doc.body);
  } catch (error) {
    throw new Error(`${label(doc)}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Rendering a kustomization (enough of kustomize for these manifests): resources, components,
// strategic-merge patches (lists of named items merge by name), replacements, namespace and
// image overrides; local-config documents are left out of the final output, as kustomize does.

function strategicMerge(base: unknown, patch: unknown): unknown {
  if (isObject(base) && isObject(patch)) {
    const out: Json = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      if (key.startsWith("$")) throw new Error(`patch directive ${key} is not supported by this test`);
      out[key] = value === null ? undefined : strategicMerge(base[key], value);
    }
    return out;
  }
  const named = (list: unknown[]) => list.every((item) => isObject(item) && typeof item.name === "string");
  if (Array.isArray(base) && Array.isArray(patch) && named(base) && named(patch)) {
    const out = [...base] as Json[];
    for (const item of patch as Json[]) {
      const at = out.findIndex((existing) => existing.name === item.name);
      if (at === -1) out.push(item);
      else out[at] = strategicMerge(out[at], item) as Json;
    }
    return out;
  }
  return patch;
}

function identity(body: Json): string {
  const meta = isObject(body.metadata) ? body.metadata : {};
  return `${String(body.kind)}/${String(meta.name)}`;
}

const isLocalConfig = (body: Json) =>
  isObject(body.metadata) &&
  isObject(body.metadata.annotations) &&
  body.metadata.annotations["config.kubernetes.io/local-config"] === "true";

/** One step of a replacement field path: a key, a list index, or a list item selected by `[field=value]`. */
function fieldPathSteps(fieldPath: string): string[] {
  return fieldPath.match(/\[[^\]]*\]|[^.[\]]+/g) ?? [];
}

function stepInto(node: unknown, step: string): { parent: Json | unknown[]; key: string | number } {
  const selector = /^\[([^=\]]+)=([^\]]*)\]$/.exec(step);
  const key = step.startsWith("[") && !selector ? step.slice(1, -1) : step;
  if (Array.isArray(node)) {
    const at = selector
      ? node.findIndex((item) => isObject(item) && String(item[selector[1]!]) === selector[2])
      : /^\d+$/.test(key)
        ? Number(key)
        : -1;
    if (at < 0 || at >= node.length) throw new Error(`no list item ${step}`);
    return { parent: node, key: at };
  }
  if (!isObject(node) || selector) throw new Error(`cannot step into ${step}`);
  return { parent: node, key };
}

function readField(body: Json, fieldPath: string): unknown {
  let node: unknown = body;
  for (const step of fieldPathSteps(fieldPath)) {
    const { parent, key } = stepInto(node, step);
    node = (parent as Record<string | number, unknown>)[key];
  }
  return node;
}

/** Sets an existing field; a string replacing a number stays a number, as in kustomize. */
function writeField(body: Json, fieldPath: string, value: unknown): void {
  const steps = fieldPathSteps(fieldPath);
  let node: unknown = body;
  for (const [i, step] of steps.entries()) {
    const { parent, key } = stepInto(node, step);
    const slot = parent as Record<string | number, unknown>;
    if (i < steps.length - 1) node = slot[key];
    else {
      if (slot[key] === undefined) throw new Error(`${fieldPath} does not exist`);
      slot[key] = typeof slot[key] === "number" && typeof value === "string" ? Number(value) : value;
    }
  }
}

function selected(body: Json, select: Json): boolean {
  const meta = isObject(body.metadata) ? body.metadata : {};
  return (
    (select.kind === undefined || select.kind === body.kind) && (select.name === undefined || select.name === meta.name)
  );
}

function applyReplacements(docs: Doc[], replacements: unknown, file: string): Doc[] {
  if (replacements === undefined) return docs;
  if (!Array.isArray(replacements)) throw new Error(`${file}: replacements must be a list`);
  const out = docs.map((d) => ({ ...d, body: structuredClone(d.body) }));
  for (const replacement of replacements) {
    if (!isObject(replacement) || !isObject(replacement.source) || !Array.isArray(replacement.targets))
      throw new Error(`${file}: only inline replacements (source, targets) are supported by this test`);
    const source = replacement.source;
    const from = out.filter((d) => selected(d.body, source));
    if (from.length !== 1) throw new Error(`${file}: replacement source matches ${from.length} resources`);
    const value = readField(from[0]!.body, String(source.fieldPath));
    if (value === undefined) throw new Error(`${file}: replacement source ${String(source.fieldPath)} is empty`);
    for (const target of replacement.targets) {
      if (!isObject(target) || !isObject(target.select)) throw new Error(`${file}: replacement target needs select`);
      const matches = out.filter((d) => selected(d.body, target.select as Json));
      if (matches.length === 0) throw new Error(`${file}: replacement target matches no resource`);
      for (const doc of matches)
        for (const fieldPath of stringList(target.fieldPaths, `${file} fieldPaths`)) {
          try {
            writeField(doc.body, fieldPath, structuredClone(value));
          } catch (error) {
            throw new Error(`${label(doc)}: ${fieldPath}: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
    }
  }
  return out;
}

/** A kustomization's resources, then its components (their resources and replacements). */
function accumulate(dir: string): Doc[] {
  const { path, body } = kustomizationIn(dir);
  const file = relative(DEPLOY_DIR, path);
  const docs: Doc[] = [];
  for (const entry of stringList(body.resources, `${file} resources`)) {
    const target = resolve(dir, entry);
    if (!existsSync(target)) throw new Error(`${file}: resource ${entry} does not exist`);
    if (statSync(target).isDirectory()) docs.push(...renderUnfiltered(target));
    else docs.push(...(docsByFile.get(target) ?? []));
  }
  let withComponents = docs;
  for (const entry of stringList(body.components, `${file} components`)) {
    const target = resolve(dir, entry);
    const component = kustomizationIn(target);
    if (component.body.kind !== "Component") throw new Error(`${file}: ${entry} is not a kind: Component`);
    withComponents = applyReplacements(
      [...withComponents, ...accumulate(target)],
      component.body.replacements,
      relative(DEPLOY_DIR, component.path),
    );
  }
  return withComponents;
}

function render(dir: string): Doc[] {
  return renderUnfiltered(dir).filter((d) => !isLocalConfig(d.body));
}

function renderUnfiltered(dir: string): Doc[] {
  const { path, body } = kustomizationIn(dir);
  const file = relative(DEPLOY_DIR, path);
  let docs = accumulate(dir);
  for (const entry of patchPaths(body)) {
    if (!existsSync(resolve(dir, entry))) throw new Error(`${file}: patch ${entry} does not exist`);
    for (const patch of docsByFile.get(resolve(dir, entry)) ?? []) {
      const at = docs.findIndex((d) => identity(d.body) === identity(patch.body));
      if (at === -1) throw new Error(`${label(patch)}: patch matches no resource`);
      const target = docs[at]!;
      docs[at] = {
        ...target,
        file: `${target.file} + ${patch.file}`,
        body: strategicMerge(target.body, patch.body) as Json,
      };
    }
  }
  const namespace = body.namespace;
  if (typeof namespace === "string") {
    docs = docs.map((d) => {
      if (d.body.kind === "Namespace") return d;
      return { ...d, body: { ...d.body, metadata: { ...(d.body.metadata as Json), namespace } } };
    });
  }
  docs = applyReplacements(docs, body.replacements, file);
  const images = Array.isArray(body.images) ? body.images.filter(isObject) : [];
  for (const image of images) {
    docs = docs.map((d) => {
      if (d.body.kind !== "Deployment") return d;
      const copy = structuredClone(d.body) as unknown as IDeployment;
      for (const container of copy.spec?.template.spec?.containers ?? []) {
        const [name, tag] = (container.image ?? "").split(":");
        if (name !== image.name) continue;
        container.image = `${String(image.newName ?? name)}:${String(image.newTag ?? tag)}`;
      }
      return { ...d, body: copy as unknown as Json };
    });
  }
  return docs;
}

// ---------------------------------------------------------------------------------------------
// Policies, asserted on a set of rendered documents.

type Container = NonNullable<NonNullable<IDeployment["spec"]>["template"]["spec"]>["containers"][number];

function ofKind<T>(docs: Doc[], kind: string): Array<{ doc: Doc; body: T }> {
  return docs.filter((d) => d.body.kind === kind).map((doc) => ({ doc, body: doc.body as unknown as T }));
}

/** True when every key/value of `selector` is among `labels` (and the selector is not empty). */
function selects(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([k, v]) => labels?.[k] === v);
}

function envValue(container: Container, name: string): string | undefined {
  return container.env?.find((e) => e.name === name)?.value;
}

function checkPolicies(docs: Doc[], scope: string): void {
  const deployments = ofKind<IDeployment>(docs, "Deployment");
  const services = ofKind<IService>(docs, "Service");
  const pdbs = ofKind<IPodDisruptionBudget>(docs, "PodDisruptionBudget");
  const hpas = ofKind<IHorizontalPodAutoscaler>(docs, "HorizontalPodAutoscaler");
  const configMaps = ofKind<IConfigMap>(docs, "ConfigMap");
  const configMap = configMaps.find((c) => c.body.metadata?.name === CONFIG_MAP)?.body;
  const configKeys = new Set(Object.keys(configMap?.data ?? {}));

  describe(scope, () => {
    it("has no Secret (credentials are created out of band)", () => {
      expect(ofKind(docs, "Secret").map((s) => label(s.doc))).toEqual([]);
    });

    it("has no duplicate kind/name", () => {
      const seen = docs.map((d) => identity(d.body));
      expect(seen.filter((id, i) => seen.indexOf(id) !== i)).toEqual([]);
    });

    it(`defines ConfigMap ${CONFIG_MAP} whose peer addresses point at the services' grpc ports`, () => {
      expect(configMap, `${scope}: ConfigMap ${CONFIG_MAP} missing`).toBeDefined();
      // The addresses a process computes from the ConfigMap, as the processes do.
      for (const [name, address] of serviceAddresses(configMap?.data ?? {})) {
        const url = new URL(address);
        expect(url.hostname, `${name}'s address ${address} must name its Service`).toBe(name);
        const service = services.find((s) => s.body.metadata?.name === name)?.body;
        const grpc = service?.spec?.ports?.find((p) => p.name === "grpc");
        expect(grpc?.port, `Service ${name} grpc port must match ${address}`).toBe(SERVICE_PORTS[name]);
        expect(Number(url.port), `${name}'s address ${address}`).toBe(SERVICE_PORTS[name]);
      }
    });

    it("has the gateway and exactly the registered services as Deployments", () => {
      expect(deployments.map((d) => d.body.metadata?.name).sort()).toEqual([...COMPONENTS].sort());
    });

    it("names every Service port; grpc ports declare h2c", () => {
      for (const { doc, body } of services) {
        for (const port of body.spec?.ports ?? []) {
          expect(port.name, `${label(doc)}: unnamed port ${port.port}`).toMatch(/^(http|admin|grpc|ops)$/);
          if (port.name === "grpc")
            expect(port.appProtocol, `${label(doc)}: grpc appProtocol`).toBe("kubernetes.io/h2c");
        }
      }
    });

    it("keeps the gateway admin port off every Service but gateway-admin", () => {
      for (const { doc, body } of services) {
        const exposesAdmin = (body.spec?.ports ?? []).some(
          (p) => p.name === "admin" || p.targetPort === "admin" || p.targetPort === 8081,
        );
        expect(exposesAdmin, `${label(doc)} exposes the admin port`).toBe(body.metadata?.name === "gateway-admin");
      }
      const admin = services.find((s) => s.body.metadata?.name === "gateway-admin")?.body;
      expect(admin?.spec?.type ?? "ClusterIP", "gateway-admin type").toBe("ClusterIP");
      expect(admin?.spec?.ports?.map((p) => p.name)).toEqual(["admin"]);
    });

    it("gives the gateway an autoscaling/v2 HPA on 70% CPU (min >= 2, max 10)", () => {
      const hpa = hpas.find(
        (h) => h.body.spec?.scaleTargetRef.kind === "Deployment" && h.body.spec.scaleTargetRef.name === "gateway",
      )?.body;
      expect(hpa, "HPA targeting Deployment gateway").toBeDefined();
      expect(hpa?.spec?.minReplicas ?? 1).toBeGreaterThanOrEqual(2);
      expect(hpa?.spec?.maxReplicas).toBe(10);
      const cpu = hpa?.spec?.metrics?.find((m) => m.type === "Resource" && m.resource?.name === "cpu");
      expect(cpu?.resource?.target).toEqual({ type: "Utilization", averageUtilization: 70 });
      const gateway = deployments.find((d) => d.body.metadata?.name === "gateway")?.body;
      expect(gateway?.spec?.replicas, "gateway replicas within the HPA range").toBeGreaterThanOrEqual(
        hpa?.spec?.minReplicas ?? 1,
      );
    });

    for (const { doc, body: deployment } of deployments) {
      const name = deployment.metadata?.name ?? "?";
      const where = label(doc);
      const pod = deployment.spec?.template;
      const podSpec = pod?.spec;
      const podLabels = pod?.metadata?.labels;
      const containers = podSpec?.containers ?? [];

      describe(`Deployment ${name}`, () => {
        it("is labelled and selects its own pods", () => {
          const expected = { "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "voiceops" };
          expect(deployment.metadata?.labels, `${where}: metadata.labels`).toMatchObject(expected);
          expect(podLabels, `${where}: template labels`).toMatchObject(expected);
          expect(
            selects(deployment.spec?.selector.matchLabels, podLabels),
            `${where}: selector does not match template labels`,
          ).toBe(true);
          expect(deployment.spec?.replicas, `${where}: replicas`).toBeGreaterThanOrEqual(2);
        });

        it("runs the component's command from the shared image", () => {
          expect(containers, `${where}: one container`).toHaveLength(1);
          // The image holds the compiled entry points (npm run build): dist/<component>.js.
          expect(containers[0]?.command, `${where}: command`).toEqual(["node", `dist/${name}.js`]);
          // Node's flags come from the image (NODE_OPTIONS), the same for every component.
          expect(
            (containers[0]?.env ?? []).map((e) => e.name),
            `${where}: env`,
          ).not.toContain("NODE_OPTIONS");
          if (scope.startsWith("base")) expect(containers[0]?.image, `${where}: image`).toBe(BASE_IMAGE);
        });

        it("is hardened (non-root, read-only root FS, no privilege escalation, no capabilities)", () => {
          const psc = podSpec?.securityContext;
          expect(psc?.runAsNonRoot, `${where}: runAsNonRoot`).toBe(true);
          expect(psc?.runAsUser, `${where}: runAsUser`).toBe(10001);
          expect(psc?.fsGroup, `${where}: fsGroup`).toBe(10001);
          expect(psc?.seccompProfile?.type, `${where}: seccompProfile`).toBe("RuntimeDefault");
          expect(podSpec?.automountServiceAccountToken, `${where}: automountServiceAccountToken`).toBe(false);
          for (const c of containers) {
            const csc = c.securityContext;
            expect(csc?.allowPrivilegeEscalation, `${where} ${c.name}: allowPrivilegeEscalation`).toBe(false);
            expect(csc?.readOnlyRootFilesystem, `${where} ${c.name}: readOnlyRootFilesystem`).toBe(true);
            expect(csc?.capabilities?.drop, `${where} ${c.name}: capabilities.drop`).toContain("ALL");
            expect(csc?.capabilities?.add ?? [], `${where} ${c.name}: capabilities.add`).toEqual([]);
            expect(csc?.privileged ?? false, `${where} ${c.name}: privileged`).toBe(false);
            const tmp = c.volumeMounts?.find((m) => m.mountPath === "/tmp");
            const volume = podSpec?.volumes?.find((v) => v.name === tmp?.name);
            expect(volume?.emptyDir, `${where} ${c.name}: /tmp must be an emptyDir mount`).toBeDefined();
          }
        });

        it("has startup, liveness and readiness HTTP probes on declared ports", () => {
          for (const c of containers) {
            const portNames = new Set((c.ports ?? []).map((p) => p.name));
            const probePort = name === "gateway" ? "http" : "ops";
            const expected = {
              startupProbe: "/health/live",
              livenessProbe: "/health/live",
              readinessProbe: "/health/ready",
            } as const;
            for (const [kind, path] of Object.entries(expected) as Array<[keyof typeof expected, string]>) {
              const probe = c[kind]?.httpGet;
              expect(probe, `${where} ${c.name}: ${kind}.httpGet`).toBeDefined();
              expect(probe?.path, `${where} ${c.name}: ${kind} path`).toBe(path);
              expect(probe?.port, `${where} ${c.name}: ${kind} port`).toBe(probePort);
              expect(portNames.has(String(probe?.port)), `${where} ${c.name}: ${kind} port not declared`).toBe(true);
            }
          }
        });

        it("sets resource requests and limits", () => {
          for (const c of containers) {
            const r = c.resources;
            expect(r?.requests?.cpu, `${where} ${c.name}: requests.cpu`).toBeDefined();
            expect(r?.requests?.memory, `${where} ${c.name}: requests.memory`).toBeDefined();
            expect(r?.limits?.memory, `${where} ${c.name}: limits.memory`).toBeDefined();
          }
        });

        it("drains gracefully (preStop hook, terminationGracePeriodSeconds >= 30)", () => {
          expect(
            podSpec?.terminationGracePeriodSeconds,
            `${where}: terminationGracePeriodSeconds`,
          ).toBeGreaterThanOrEqual(30);
          for (const c of containers) {
            const hook = c.lifecycle?.preStop;
            expect(
              hook?.exec?.command ?? hook?.httpGet ?? hook?.sleep,
              `${where} ${c.name}: lifecycle.preStop`,
            ).toBeDefined();
          }
        });

        it("gets its required env, with ConfigMap/Secret references that resolve", () => {
          for (const c of containers) {
            const names = (c.env ?? []).map((e) => e.name);
            expect(
              names.filter((n, i) => names.indexOf(n) !== i),
              `${where} ${c.name}: duplicate env`,
            ).toEqual([]);
            const required = REQUIRED_ENV[name === "gateway" ? "gateway" : "service"];
            expect(
              required.filter((n) => !names.includes(n)),
              `${where} ${c.name}: missing env`,
            ).toEqual([]);
            for (const e of c.env ?? []) {
              const cm = e.valueFrom?.configMapKeyRef;
              if (cm) {
                expect(cm.name, `${where} ${c.name}: env ${e.name} ConfigMap`).toBe(CONFIG_MAP);
                expect(
                  configKeys.has(cm.key),
                  `${where} ${c.name}: env ${e.name} -> ${CONFIG_MAP}.${cm.key} is not defined`,
                ).toBe(true);
              }
              const secret = e.valueFrom?.secretKeyRef;
              if (secret) {
                expect(secret.name, `${where} ${c.name}: env ${e.name} Secret`).toBe(SECRET);
                expect(SECRET_KEYS, `${where} ${c.name}: env ${e.name} -> unknown secret key`).toContain(secret.key);
              }
            }
            for (const e of c.envFrom ?? []) {
              if (e.configMapRef) expect(e.configMapRef.name).toBe(CONFIG_MAP);
              if (e.secretRef) expect(e.secretRef.name).toBe(SECRET);
            }
          }
        });

        it("listens where its env and Service say", () => {
          const c = containers[0];
          expect(c, `${where}: container`).toBeDefined();
          if (c === undefined) return;
          const port = (portName: string) => c.ports?.find((p) => p.name === portName)?.containerPort;
          if (name === "gateway") {
            expect(envValue(c, "PORT"), `${where}: PORT`).toBe(String(port("http")));
            expect(envValue(c, "ADMIN_PORT"), `${where}: ADMIN_PORT`).toBe(String(port("admin")));
            expect(envValue(c, "ADMIN_HOST"), `${where}: ADMIN_HOST`).toBe("0.0.0.0");
          } else {
            const grpc = SERVICE_PORTS[name];
            expect(port("grpc"), `${where}: grpc containerPort`).toBe(grpc);
            expect(envValue(c, "GRPC_PORT"), `${where}: GRPC_PORT`).toBe(String(grpc));
            expect(envValue(c, "GRPC_HOST"), `${where}: GRPC_HOST`).toBe("0.0.0.0");
            expect(port("ops"), `${where}: ops containerPort`).toBe((grpc ?? 0) + 1000);
            expect(envValue(c, "OPS_PORT"), `${where}: OPS_PORT`).toBe(String(port("ops")));
          }
        });

        it("is selected by a Service whose target ports exist on the pod", () => {
          const mine = services.filter((s) => selects(s.body.spec?.selector, podLabels));
          expect(
            mine.map((s) => s.body.metadata?.name),
            `${where}: Services`,
          ).toContain(name);
          const portNames = new Set(containers.flatMap((c) => (c.ports ?? []).map((p) => p.name)));
          for (const { doc: svcDoc, body: svc } of mine) {
            for (const p of svc.spec?.ports ?? []) {
              expect(
                portNames.has(String(p.targetPort)),
                `${label(svcDoc)}: targetPort ${String(p.targetPort)} not a named port of ${name}`,
              ).toBe(true);
            }
          }
        });

        it("is covered by a PodDisruptionBudget that keeps a pod up", () => {
          const mine = pdbs.filter((p) => selects(p.body.spec?.selector?.matchLabels, podLabels));
          expect(mine, `${where}: PodDisruptionBudget`).toHaveLength(1);
          const spec = mine[0]?.body.spec;
          const ok =
            spec?.minAvailable !== undefined
              ? Number(spec.minAvailable) >= 1
              : spec?.maxUnavailable !== undefined && Number(spec.maxUnavailable) <= 1;
          expect(ok, `${where}: PDB minAvailable >= 1 or maxUnavailable <= 1`).toBe(true);
        });
      });
    }
  });
}

// ---------------------------------------------------------------------------------------------

const kustomizationFiles = allFiles.filter(isKustomization);
const patchFiles = new Set<string>();
const resourceFiles = new Set<string>();
for (const path of kustomizationFiles) {
  const body = docsByFile.get(path)?.[0]?.body ?? {};
  for (const entry of patchPaths(body)) patchFiles.add(resolve(dirname(path), entry));
  for (const entry of [
    ...stringList(body.resources, relative(DEPLOY_DIR, path)),
    ...stringList(body.components, relative(DEPLOY_DIR, path)),
  ])
    resourceFiles.add(resolve(dirname(path), entry));
}
const manifestDocs = allFiles
  .filter((p) => !isKustomization(p) && !patchFiles.has(p))
  .flatMap((p) => docsByFile.get(p) ?? []);
const overlayDirs = existsSync(OVERLAYS_DIR)
  ? readdirSync(OVERLAYS_DIR)
      .sort()
      .map((d) => join(OVERLAYS_DIR, d))
      .filter((d) => statSync(d).isDirectory())
  : [];

describe("deploy manifests", () => {
  it("run Node in the image with the flags the local start scripts of the gateway and the services have", () => {
    const root = join(DEPLOY_DIR, "..");
    const flags = (script: string) => scriptNodeFlags(root, script).join(" ");
    const image = /^ENV NODE_OPTIONS=(.*)$/m.exec(readFileSync(join(root, "Dockerfile"), "utf8"))?.[1]?.trim();
    expect(flags("start:gateway")).not.toBe("");
    expect(image).toBe(flags("start:gateway"));
    expect(image).toBe(flags("start:service"));
  });

  it("parse as YAML without errors", () => {
    expect(parseErrors).toEqual([]);
    expect(allFiles.length).toBeGreaterThan(0);
  });

  it("kustomizations reference only files that exist, and every manifest file is referenced", () => {
    const problems: string[] = [];
    for (const path of kustomizationFiles) {
      const file = relative(DEPLOY_DIR, path);
      const body = docsByFile.get(path)?.[0]?.body ?? {};
      for (const entry of [
        ...stringList(body.resources, `${file} resources`),
        ...stringList(body.components, `${file} components`),
        ...patchPaths(body),
      ]) {
        const target = resolve(dirname(path), entry);
        if (!existsSync(target)) problems.push(`${file}: ${entry} does not exist`);
        else if (statSync(target).isDirectory() && !existsSync(join(target, "kustomization.yaml")))
          problems.push(`${file}: ${entry} has no kustomization.yaml`);
      }
    }
    for (const path of allFiles) {
      if (!isKustomization(path) && !patchFiles.has(path) && !resourceFiles.has(path))
        problems.push(`${relative(DEPLOY_DIR, path)} is not listed in any kustomization`);
    }
    expect(problems).toEqual([]);
  });

  it.each(manifestDocs.map((doc) => [label(doc), doc] as const))("schema-valid: %s", (_name, doc) => {
    expect(() => validateSchema(doc)).not.toThrow();
  });

  it("has one manifest per component in the base (gateway.yaml, a directory per registered service), holding its Deployment", () => {
    const entries = readdirSync(BASE_DIR).filter((entry) => !isKustomization(entry) && entry !== "configmap.yaml");
    const services = COMPONENTS.filter((name) => name !== "gateway");
    expect(entries.sort()).toEqual(["gateway.yaml", ...services].sort());
    const deploymentNames = (docs: Doc[]) =>
      docs
        .filter((d) => d.body.kind === "Deployment")
        .map((d) => (isObject(d.body.metadata) ? d.body.metadata.name : undefined));
    expect(deploymentNames(docsByFile.get(join(BASE_DIR, "gateway.yaml")) ?? []), "base/gateway.yaml").toEqual([
      "gateway",
    ]);
    for (const name of services) expect(deploymentNames(render(join(BASE_DIR, name))), `base/${name}/`).toEqual([name]);
  });

  it("every document carries the part-of label", () => {
    const unlabelled = manifestDocs.filter((d) => {
      if (isLocalConfig(d.body)) return false; // never deployed
      const meta = isObject(d.body.metadata) ? d.body.metadata : {};
      return !isObject(meta.labels) || meta.labels["app.kubernetes.io/part-of"] !== "voiceops";
    });
    expect(unlabelled.map(label)).toEqual([]);
  });
});

/** Renders a kustomization, or registers a failing test that says why it cannot be rendered. */
function renderOrFail(dir: string, scope: string): Doc[] | undefined {
  try {
    return render(dir);
  } catch (error) {
    describe(scope, () => {
      it("renders", () => {
        throw error;
      });
    });
    return undefined;
  }
}

const base = renderOrFail(BASE_DIR, "base");
if (base) checkPolicies(base, "base");

for (const dir of overlayDirs) {
  const name = `overlay ${basename(dir)}`;
  const rendered = renderOrFail(dir, name);
  if (rendered === undefined) continue;
  const { body: kustomization } = kustomizationIn(dir);

  describe(name, () => {
    it.each(rendered.map((doc) => [label(doc), doc] as const))("rendered schema-valid: %s", (_label, doc) => {
      expect(() => validateSchema(doc)).not.toThrow();
    });

    it("defines the Namespace it deploys into", () => {
      const namespaces = ofKind<INamespace>(rendered, "Namespace").map((n) => n.body.metadata?.name);
      expect(namespaces, "Namespace resource").toContain(kustomization.namespace);
    });

    it("overrides the base image with a pinned tag", () => {
      const images = ofKind<IDeployment>(rendered, "Deployment").flatMap((d) =>
        (d.body.spec?.template.spec?.containers ?? []).map((c) => c.image),
      );
      expect(
        images.filter((i) => i === BASE_IMAGE || i?.endsWith(":latest")),
        "unpinned images",
      ).toEqual([]);
      expect(new Set(images).size, "one image for every component").toBe(1);
    });
  });

  checkPolicies(rendered, name);
}
