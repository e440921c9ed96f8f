import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  BulkDeleteContactsRequestSchema,
  ListContactsRequestSchema,
  SearchContactsRequestSchema,
} from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";
import { applyDefaults } from "../src/defaults.js";
import { validateMessage } from "../src/validation/validate.js";
import { invalidArgument, violationsOf } from "../src/validation/violations.js";
import { enumFromJson, enumJsonValues, enumToJson } from "../src/proto-options.js";
import { ContactStatusSchema } from "@voiceops/proto/voiceops/crm/v1/crm_service_pb";

describe("validateMessage", () => {
  it("reports every failing field with its rule and the rule's parameters", () => {
    const message = create(ListContactsRequestSchema, { page: 0, pageSize: 101, search: "x".repeat(201) });
    const violations = validateMessage(ListContactsRequestSchema, message as never, { country: "US" });
    expect(violations.map((v) => [v.field, v.rule])).toEqual([
      ["page", "gte"],
      ["page_size", "lte"],
      ["search", "max_length"],
    ]);
    expect(violations[1]?.context).toEqual({ max: 100 });
  });

  it("reports a missing required field", () => {
    const violations = validateMessage(SearchContactsRequestSchema, create(SearchContactsRequestSchema) as never, {
      country: "US",
    });
    expect(violations).toEqual([expect.objectContaining({ field: "q", rule: "required", message: "" })]);
  });

  it("checks every element of a repeated field and its size", () => {
    const ids = ["018f0000-0000-7000-8000-000000000000", "nope"];
    const violations = validateMessage(
      BulkDeleteContactsRequestSchema,
      create(BulkDeleteContactsRequestSchema, { ids }) as never,
      { country: "US" },
    );
    expect(violations.map((v) => [v.field, v.rule, v.context])).toEqual([["ids.1", "format", { format: "uuid" }]]);
    const tooMany = validateMessage(
      BulkDeleteContactsRequestSchema,
      create(BulkDeleteContactsRequestSchema, { ids: Array(501).fill(ids[0]) }) as never,
      { country: "US" },
    );
    expect(tooMany.map((v) => [v.rule, v.context])).toEqual([["max_items", { max_items: 500, actual_items: 501 }]]);
  });

  it("applies declared defaults only to absent fields", () => {
    const message = create(ListContactsRequestSchema, { pageSize: 7 });
    applyDefaults(ListContactsRequestSchema, message as never);
    expect(message.page).toBe(1);
    expect(message.pageSize).toBe(7);
    expect(message.prospects).toBe(false);
  });
});

describe("violations travel as error details", () => {
  it("round-trips through a ConnectError", () => {
    const error = invalidArgument([
      {
        field: "contact_id",
        rule: "not_found",
        message: "contact not found",
        input: "x",
        context: { entity: "contact" },
      },
    ]);
    expect(violationsOf(error)).toEqual([
      {
        field: "contact_id",
        rule: "not_found",
        message: "contact not found",
        input: "x",
        context: { entity: "contact" },
      },
    ]);
    expect(error.rawMessage).toBe("contact_id: contact not found");
  });

  it("carries every rule of the closed set", () => {
    const rules = [
      "required",
      "type",
      "min_length",
      "max_length",
      "min_items",
      "max_items",
      "gte",
      "lte",
      "enum",
      "format",
      "no_nul",
      "not_found",
      "invalid",
    ] as const;
    const error = invalidArgument(rules.map((rule) => ({ field: "f", rule, message: "" })));
    expect(violationsOf(error).map((v) => v.rule)).toEqual(rules);
  });
});

describe("enum spelling", () => {
  it("drops the prefix and the zero value", () => {
    expect(enumJsonValues(ContactStatusSchema)).toEqual(["prospect", "lead", "customer", "inactive"]);
    expect(enumToJson(ContactStatusSchema, 2)).toBe("lead");
    expect(enumFromJson(ContactStatusSchema, "customer")).toBe(3);
    expect(enumFromJson(ContactStatusSchema, "unspecified")).toBeUndefined();
    expect(enumToJson(ContactStatusSchema, 0)).toBeNull();
  });
});
