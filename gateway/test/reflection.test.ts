import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { serviceEntry } from "@voiceops/platform/registry";
import { REPO_ROOT } from "@voiceops/platform/testing";

// gRPC server reflection on every service, checked with a real client that has no proto files:
// buf curl lists the methods and calls one, resolving every message through reflection.

const run = promisify(execFile);
const BUF = join(REPO_ROOT, "node_modules", ".bin", "buf");
const serviceUrls = inject("serviceUrls");
const internalToken = inject("internalToken");

async function bufCurl(args: string[]): Promise<string> {
  const { stdout } = await run(BUF, ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args], {
    timeout: 60_000,
    cwd: REPO_ROOT,
  });
  return stdout;
}

describe("gRPC server reflection", () => {
  it.each(Object.keys(serviceUrls))("%s lists its methods to buf curl (reflection v1 and v1alpha)", async (name) => {
    const url = serviceUrls[name] as string;
    for (const protocol of ["grpc-v1", "grpc-v1alpha"]) {
      const methods = (await bufCurl(["--reflect-protocol", protocol, "--list-methods", url]))
        .split("\n")
        .filter(Boolean);
      expect(methods).toContain("voiceops.health.v1.HealthService/Check");
      expect(methods).toContain("grpc.reflection.v1.ServerReflection/ServerReflectionInfo");
      // Every method of the proto services the registry says it serves (the gateway's routes to it).
      for (const service of serviceEntry(name).api) {
        for (const method of service.methods) expect(methods).toContain(`${service.typeName}/${method.name}`);
      }
    }
  });

  it("lets buf curl call a method with JSON, the schema coming from reflection", async () => {
    const url = serviceUrls.crm as string;
    const org = ["-H", `x-internal-token: ${internalToken}`, "-H", `x-org-id: ${randomUUID()}`, "-H", "x-role: owner"];
    const created = JSON.parse(
      await bufCurl([
        ...org,
        "-d",
        JSON.stringify({ name: "Reflected Contact", phoneNumber: "+15550109999" }),
        `${url}/voiceops.crm.v1.CrmService/CreateContact`,
      ]),
    ) as {
      contact: { id: string; name: string; phoneNumber: string };
    };
    expect(created.contact).toMatchObject({ name: "Reflected Contact", phoneNumber: "+15550109999" });
    const read = JSON.parse(
      await bufCurl([
        ...org,
        "-d",
        JSON.stringify({ contactId: created.contact.id }),
        `${url}/voiceops.crm.v1.CrmService/GetContact`,
      ]),
    ) as {
      contact: { id: string };
    };
    expect(read.contact.id).toBe(created.contact.id);
  });

  it("still requires the internal token for the service's own methods", async () => {
    const url = serviceUrls.crm as string;
    const failure = await bufCurl(["-d", "{}", `${url}/voiceops.crm.v1.CrmService/ListContacts`]).then(
      () => "",
      (error: { stderr?: string }) => String(error.stderr),
    );
    expect(failure).toMatch(/unauthenticated/i);
  });
});
