import { describe, expect, it } from "vitest";
import { incomingHeaders, webHeaders } from "../src/rpc/unary-call.js";

// A served call's metadata is read from Node's header object until something other than get or
// has is asked of it; every answer must be the one a filled Headers (webHeaders) gives.

const node = (): Record<string, string | string[] | undefined> => ({
  "content-type": "application/proto",
  "x-org-id": "org-1",
  "set-cookie": ["a=1", "b=2"],
  "x-empty": "",
  "x-absent": undefined,
  ":path": "/pseudo",
});

describe("incomingHeaders", () => {
  it("answers get and has as webHeaders does, names in any case, before and after it is filled", () => {
    const filled = webHeaders(node());
    const filledFirst = incomingHeaders(node());
    filledFirst.append("x-later", "1");
    filledFirst.delete("x-later");
    for (const lazy of [incomingHeaders(node()), filledFirst]) {
      for (const name of ["content-type", "X-Org-Id", "set-cookie", "x-empty", "x-absent", "x-missing"]) {
        expect([name, lazy.get(name), lazy.has(name)]).toEqual([name, filled.get(name), filled.has(name)]);
      }
      expect(() => lazy.get("bad name")).toThrow(TypeError);
      expect(lazy).toBeInstanceOf(Headers);
    }
  });

  it("iterates, copies and changes like a Headers filled from the same fields", () => {
    const filled = webHeaders(node());
    expect([...incomingHeaders(node())]).toEqual([...filled]);
    expect([...new Headers(incomingHeaders(node())).entries()]).toEqual([...filled.entries()]);
    expect([...incomingHeaders(node()).keys()]).toEqual([...filled.keys()]);
    expect(incomingHeaders(node()).getSetCookie()).toEqual(["a=1", "b=2"]);

    const changed = incomingHeaders(node());
    changed.set("x-org-id", "org-2");
    changed.append("x-new", "v");
    changed.delete("content-type");
    expect([changed.get("x-org-id"), changed.get("x-new"), changed.get("content-type"), changed.get("set-cookie")]).toEqual(["org-2", "v", null, "a=1, b=2"]);
  });
});
