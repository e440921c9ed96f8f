import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  blankToNull,
  enumToJson,
  invalidArgument,
  normalizePhone,
  orgOf,
  type ServiceContext,
  invalidValue,
  tooFewItems,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  ListDncEntriesRequestSchema,
  DispositionOutcome,
  DispositionSchema,
  DncSource,
  DncSourceSchema,
  InvalidPhoneSchema,
  type BulkAddDncRequest,
  type CheckDncRequest,
  type DeleteDncEntryRequest,
  type InvalidPhone,
  type ListDncEntriesRequest,
  type OutboundService,
} from "@voiceops/proto/voiceops/comms/v1/outbound_service_pb";
import type { UploadedFile } from "@voiceops/proto/voiceops/api/v1/upload_pb";
import { hasNul } from "../outbound/contact-rows.js";
import { columnIndex, CsvRefused, readCsvLimits, readUploadedCsv } from "../outbound/csv.js";
import { DISPOSITIONS, type DispositionOutcomeName } from "../outbound/dispositions.js";
import type { OutboundEngine } from "../outbound/engine.js";
import type { DncSourceName } from "../store/outbound-rows.js";
import { toDncEntry } from "../store/outbound-rows.js";

const OUTCOMES: Record<DispositionOutcomeName, DispositionOutcome> = {
  positive: DispositionOutcome.POSITIVE,
  negative: DispositionOutcome.NEGATIVE,
  neutral: DispositionOutcome.NEUTRAL,
  retry: DispositionOutcome.RETRY,
  dnc: DispositionOutcome.DNC,
};

/** Most numbers one bulk add may hold. */
const MAX_NUMBERS = 10_000;

const DISPOSITION_LIST = DISPOSITIONS.map((d) =>
  create(DispositionSchema, { code: d.code, label: d.label, outcome: OUTCOMES[d.outcome], isFinal: d.isFinal }),
);

/** Numbers of a bulk add, split into distinct E.164 numbers and the values that are not numbers. */
function readPhoneList(
  values: readonly string[],
  country: string,
): { phones: string[]; repeated: number; invalid: InvalidPhone[] } {
  const phones = new Set<string>();
  const invalid: InvalidPhone[] = [];
  let repeated = 0;
  for (const value of values) {
    const phone = value.trim() === "" || hasNul(value) ? undefined : normalizePhone(value, country);
    if (!phone) {
      invalid.push(
        create(InvalidPhoneSchema, {
          value: hasNul(value) ? value.replaceAll("\u0000", "") : value,
          reason: value.trim() === "" ? "empty value" : "not a valid phone number",
        }),
      );
    } else if (phones.has(phone)) {
      repeated++;
    } else {
      phones.add(phone);
    }
  }
  return { phones: [...phones], repeated, invalid };
}

/** The do-not-call list and the dispositions. */
export function dncHandlers(service: ServiceContext, engine: OutboundEngine) {
  const { db } = service;
  const csvLimits = readCsvLimits(service.env);
  const { dnc } = engine.stores;

  /** The phone_number (or phone) column of an uploaded CSV file. */
  async function csvPhones(file: UploadedFile): Promise<string[]> {
    let table;
    try {
      table = await readUploadedCsv(service.objects, file, MAX_NUMBERS, csvLimits);
    } catch (error) {
      if (error instanceof CsvRefused) throw invalidArgument([invalidValue("file", error.message)]);
      throw error;
    }
    const column = columnIndex(table.header, "phone_number", "phone");
    if (column < 0)
      throw invalidArgument([
        invalidValue("file", "the header row has no phone_number (or phone) column", table.header.slice(0, 50)),
      ]);
    return table.rows.map((row) => row[column] ?? "");
  }

  return {
    async listDispositions() {
      return { items: DISPOSITION_LIST, total: DISPOSITION_LIST.length };
    },

    async listDncEntries(req: ListDncEntriesRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListDncEntriesRequestSchema, req);
      const listing = await dnc.list(db, org.orgId, {
        ...paging,
        search: req.search?.trim() || undefined,
      });
      return pageAnswer(paging, listing, toDncEntry);
    },

    async checkDnc(req: CheckDncRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const phoneNumber = normalizePhone(req.phone, org.country) as string;
      const entry = await dnc.active(db, org.orgId, phoneNumber, service.clock.now());
      return { phoneNumber, blocked: entry !== undefined, entry: entry ? toDncEntry(entry) : undefined };
    },

    async bulkAddDnc(req: BulkAddDncRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const now = service.clock.now();
      const expiresAt = req.expiresAt ? timestampDate(req.expiresAt) : null;
      if (expiresAt && expiresAt.getTime() <= now.getTime()) {
        throw invalidArgument([
          invalidValue("expires_at", "expires_at must be in the future", expiresAt.toISOString()),
        ]);
      }
      const sourceEnum = req.source ?? (req.file ? DncSource.IMPORT : DncSource.MANUAL);
      const source = (enumToJson(DncSourceSchema, sourceEnum) ?? "manual") as DncSourceName;
      const values = req.file ? await csvPhones(req.file) : req.phoneNumbers;
      if (values.length === 0) {
        throw invalidArgument([tooFewItems(req.file ? "file" : "phone_numbers", [], 1, 0)]);
      }
      const { phones, repeated, invalid } = readPhoneList(values, org.country);
      const added = await service.write(ctx, async (tx, emit) => {
        const rows = await dnc.add(
          tx,
          org.orgId,
          { phoneNumbers: phones, reason: blankToNull(req.reason), source, expiresAt },
          now,
        );
        engine.dncAdded(emit, org.orgId, rows, sourceEnum);
        return rows;
      });
      return { added: added.length, alreadyListed: phones.length - added.length + repeated, invalid };
    },

    async deleteDncEntry(req: DeleteDncEntryRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const phoneNumber = normalizePhone(req.phone, org.country) as string;
      const deleted = await service.write(ctx, async (tx, emit) => {
        const entryId = await dnc.delete(tx, org.orgId, phoneNumber);
        if (entryId) engine.dncDeleted(emit, org.orgId, entryId);
        return entryId;
      });
      if (!deleted) throw new ConnectError("The phone number is not on the do-not-call list", Code.NotFound);
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof OutboundService>>;
}
