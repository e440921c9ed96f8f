import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport, type Transport } from "@connectrpc/connect";
import { SERVICES } from "@voiceops/platform/registry";
import { handlerTestbed, type HandlerTestbed } from "@voiceops/platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectRoutes } from "../src/transcoder/routes.js";
import { loadServiceModule } from "../src/system.js";

// The compiler rejects a service whose handler object misses an RPC (ServiceImpl<typeof S>);
// this catches what it cannot: a handler registered for the wrong service, or an RPC added to
// a proto without a handler somewhere the types do not reach. Each annotated RPC of every
// registered service is called, with an empty request, over Connect's in-memory transport:
// any answer but Unimplemented (a missing organization, NotFound, a success) shows a handler.
// The router has none of the server's interceptors: they would refuse the empty request
// (InvalidArgument) before Connect reached the missing handler.

describe.each(SERVICES.map((entry) => [entry.name, entry] as const))(
  "every annotated RPC of %s has a handler",
  (name, entry) => {
    let testbed: HandlerTestbed;
    let transport: Transport;
    beforeAll(async () => {
      const module = await loadServiceModule(name);
      testbed = await handlerTestbed(module);
      transport = createRouterTransport(module.routes(testbed.context));
    });
    afterAll(() => testbed?.close());

    const methods = collectRoutes([...entry.api]).map((route) => route.method);
    it("has annotated RPCs", () => expect(methods.length).toBeGreaterThan(0));
    it.each(methods.map((method) => [`${method.parent.name}.${method.name}`, method] as const))(
      "%s",
      async (_, method) => {
        const code = await answerCode(transport, method);
        expect(code, `${method.parent.typeName}.${method.name} answered Unimplemented`).not.toBe(Code.Unimplemented);
      },
    );
  },
);

/** The code a call with an empty request answers: undefined for a success. */
async function answerCode(
  transport: Transport,
  method: DescMethod & { methodKind: "unary" },
): Promise<Code | undefined> {
  const client = createClient(method.parent, transport) as unknown as Record<
    string,
    (request: object) => Promise<unknown>
  >;
  const call = client[method.localName];
  if (!call) throw new Error(`no client method ${method.localName}`);
  try {
    await call({});
    return undefined;
  } catch (error) {
    return ConnectError.from(error).code;
  }
}
