// Offline checks of the operators' dashboard and alert rules under deploy/monitoring: both parse,
// and every metric they query is one the code exports, so a renamed metric cannot leave a panel
// or an alert silently empty.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const MONITORING = join(ROOT, "deploy", "monitoring");

/** PromQL's functions and keywords used in the queries: every other identifier is a metric. */
const PROMQL_WORDS = new Set([
  "sum",
  "max",
  "min",
  "avg",
  "count",
  "rate",
  "increase",
  "irate",
  "histogram_quantile",
  "by",
  "without",
  "on",
  "ignoring",
  "and",
  "or",
  "unless",
]);

/** Metric names registered in the code: `name: "..."` of prom-client metrics under services/platform/src. */
function exportedMetrics(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith(".ts")) {
        const source = readFileSync(path, "utf8");
        for (const block of source.matchAll(
          /new (Counter|Gauge|Histogram|Summary)\(\{\s*name: "([a-z_:][a-z0-9_:]*)"/g,
        )) {
          const name = block[2] as string;
          names.add(name);
          if (block[1] === "Histogram" || block[1] === "Summary")
            for (const suffix of ["_bucket", "_count", "_sum"]) names.add(`${name}${suffix}`);
        }
      }
    }
  };
  walk(join(ROOT, "services", "platform", "src"));
  return names;
}

/** The metric names a PromQL expression reads. */
function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, " ") // label matchers
    .replace(/\[[^\]]*\]/g, " ") // ranges
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, " ") // grouping labels
    .replace(/"[^"]*"/g, " ");
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]).filter((word) => !PROMQL_WORDS.has(word));
}

const dashboard = JSON.parse(readFileSync(join(MONITORING, "grafana-dashboard.json"), "utf8")) as {
  title: string;
  panels: { title: string; targets: { expr: string }[] }[];
};
const rules = parse(readFileSync(join(MONITORING, "prometheus-rules.yaml"), "utf8")) as {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    groups: {
      name: string;
      rules: { alert: string; expr: string; labels: { severity: string }; annotations: { summary: string } }[];
    }[];
  };
};
const exported = exportedMetrics();

describe("the Grafana dashboard", () => {
  it("parses and has panels with queries", () => {
    expect(dashboard.title).toBeTruthy();
    expect(dashboard.panels.length).toBeGreaterThan(0);
    for (const panel of dashboard.panels) expect(panel.targets.length, panel.title).toBeGreaterThan(0);
  });

  it("queries only metrics the code exports", () => {
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) {
        const metrics = metricsOf(target.expr);
        expect(metrics.length, `${panel.title}: ${target.expr}`).toBeGreaterThan(0);
        for (const metric of metrics)
          expect(exported.has(metric), `${panel.title}: ${metric} is not exported`).toBe(true);
      }
    }
  });

  it("covers requests, RPCs, the outbox, consumers, webhooks and the database pool", () => {
    const queried = new Set(
      dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricsOf(target.expr))),
    );
    for (const metric of [
      "http_request_duration_seconds_count",
      "http_request_duration_seconds_bucket",
      "rpc_duration_seconds_count",
      "outbox_backlog",
      "outbox_publish_lag_seconds_bucket",
      "events_consumer_pending",
      "webhook_delivery_attempts_total",
      "db_pool_waiting",
    ]) {
      expect(queried.has(metric), metric).toBe(true);
    }
  });
});

describe("the Prometheus alert rules", () => {
  it("are a PrometheusRule with named, labelled alerts", () => {
    expect(rules.apiVersion).toBe("monitoring.coreos.com/v1");
    expect(rules.kind).toBe("PrometheusRule");
    expect(rules.metadata.name).toBeTruthy();
    const alerts = rules.spec.groups.flatMap((group) => group.rules);
    expect(alerts.length).toBeGreaterThan(0);
    for (const rule of alerts) {
      expect(rule.alert).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(["critical", "warning", "info"]).toContain(rule.labels.severity);
      expect(rule.annotations.summary).toBeTruthy();
    }
    expect(new Set(alerts.map((rule) => rule.alert)).size).toBe(alerts.length);
  });

  it("query only metrics the code exports", () => {
    for (const rule of rules.spec.groups.flatMap((group) => group.rules)) {
      const metrics = metricsOf(rule.expr);
      expect(metrics.length, rule.alert).toBeGreaterThan(0);
      for (const metric of metrics) expect(exported.has(metric), `${rule.alert}: ${metric} is not exported`).toBe(true);
    }
  });

  it("the check itself catches a metric the code does not export", () => {
    expect(metricsOf('sum(rate(no_such_metric_total{a="b"}[5m])) by (route)').filter((m) => !exported.has(m))).toEqual([
      "no_such_metric_total",
    ]);
  });
});
