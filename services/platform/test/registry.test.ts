import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/config.js";
import { SERVICES, serviceAddresses } from "../src/registry.js";
import { isServiceModule } from "../src/service.js";

describe("serviceAddresses (where a process finds every registered service)", () => {
  it("defaults to each service's registered port on this host", () => {
    const addresses = serviceAddresses({});
    expect([...addresses.keys()]).toEqual(SERVICES.map((s) => s.name));
    for (const { name, port } of SERVICES) expect(addresses.get(name)).toBe(`http://127.0.0.1:${port}`);
  });

  it("fills SERVICE_ADDR_TEMPLATE with each name and port; <NAME>_SERVICE_ADDR wins for its service", () => {
    const addresses = serviceAddresses({
      SERVICE_ADDR_TEMPLATE: "http://{name}.voiceops.svc:{port}",
      CRM_SERVICE_ADDR: "http://10.0.0.7:9000",
    });
    expect(addresses.get("crm")).toBe("http://10.0.0.7:9000");
    expect(addresses.get("comms")).toBe("http://comms.voiceops.svc:50064");
  });

  it("stops at start-up on an address that is not an http(s) URL, naming the variable", () => {
    expect(() => serviceAddresses({ SERVICE_ADDR_TEMPLATE: "{name}:{port}" })).toThrow(ConfigError);
    expect(() => serviceAddresses({ JOBS_SERVICE_ADDR: "nats://jobs:4222" })).toThrow(/JOBS_SERVICE_ADDR/);
  });
});

describe("isServiceModule (what the embedded launcher accepts as a service)", () => {
  const module = { name: "crm", schema: "crm", migrationsDir: "migrations", routes: () => () => undefined };

  it("accepts a module with or without its optional parts, and refuses one whose churn tables are not names", () => {
    expect(isServiceModule(module)).toBe(true);
    expect(
      isServiceModule({
        ...module,
        churnTables: ["crm.contact_count_changes"],
        background: async () => ({ stop: async () => undefined }),
      }),
    ).toBe(true);
    expect(isServiceModule({ ...module, churnTables: "crm.contact_count_changes" })).toBe(false);
    expect(isServiceModule({ ...module, churnTables: [42] })).toBe(false);
    expect(isServiceModule({ ...module, routes: undefined })).toBe(false);
  });
});
