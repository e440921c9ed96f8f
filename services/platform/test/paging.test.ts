import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ListServiceRequestsRequestSchema } from "@voiceops/proto/voiceops/jobs/v1/jobs_service_pb";
import { pageAnswer, pageOffset, pageRequest } from "../src/paging.js";

describe("the opening of a list handler", () => {
  it("reads page and page_size, each the declared default (1 and 10) where the request has none", () => {
    expect(pageRequest(ListServiceRequestsRequestSchema, create(ListServiceRequestsRequestSchema))).toEqual({
      page: 1,
      pageSize: 10,
    });
    const asked = create(ListServiceRequestsRequestSchema, { page: 3, pageSize: 25 });
    expect(pageRequest(ListServiceRequestsRequestSchema, asked)).toEqual({ page: 3, pageSize: 25 });
  });

  it("counts the items before a page", () => {
    expect(pageOffset({ page: 1, pageSize: 10 })).toBe(0);
    expect(pageOffset({ page: 3, pageSize: 25 })).toBe(50);
  });

  it("answers the page's items, the total across pages and which page it is", () => {
    const answer = pageAnswer(
      { page: 2, pageSize: 2 },
      { rows: [{ n: 3 }, { n: 4 }], total: 5 },
      (row) => `item ${row.n}`,
    );
    expect(answer).toEqual({ items: ["item 3", "item 4"], total: 5, page: 2, pageSize: 2 });
  });
});
