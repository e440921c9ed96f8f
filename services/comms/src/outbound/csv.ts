import type { Readable } from "node:stream";
import { parse } from "csv-parse";
import { envInt, type ObjectStore } from "@voiceops/platform";
import type { UploadedFile } from "@voiceops/proto/voiceops/api/v1/upload_pb";

/** A CSV file the API cannot read as a whole (no header, malformed, too many rows). */
export class CsvRefused extends Error {}

interface CsvTable {
  /** Header names as written (trimmed), in column order. */
  header: string[];
  /** Data rows, empty lines skipped; row i is data row i + 1. */
  rows: string[][];
}

/** How wide a CSV upload may be; read from the environment (CSV_MAX_COLUMNS, CSV_MAX_FIELD_CHARS). */
interface CsvLimits {
  maxColumns: number;
  maxFieldChars: number;
}

export function readCsvLimits(env: Record<string, string | undefined>): CsvLimits {
  return {
    maxColumns: envInt("CSV_MAX_COLUMNS", 100, { min: 2, max: 10_000 }, env),
    maxFieldChars: envInt("CSV_MAX_FIELD_CHARS", 8192, { min: 64, max: 1024 * 1024 }, env),
  };
}

/** Most characters one row may have while the parser reads it: past this it stops, whatever the row holds. */
function maxRowChars(limits: CsvLimits): number {
  return Math.max(256 * 1024, limits.maxFieldChars * 4);
}

/**
 * Reads a CSV stream with a real parser (quotes, embedded commas and newlines, a BOM), keeping
 * at most `maxRows` data rows: one more refuses the whole file, so nothing is half imported.
 * Rows, columns and values are bounded as they stream in: a row longer than the parser holds,
 * one with too many columns or a value too long refuses the file at that row.
 */
async function readCsv(body: Readable, maxRows: number, limits: CsvLimits): Promise<CsvTable> {
  const rowChars = maxRowChars(limits);
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    trim: true,
    max_record_size: rowChars,
  });
  body.on("error", (error) => parser.destroy(error));
  body.pipe(parser);
  let header: string[] | undefined;
  const rows: string[][] = [];
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const line = rows.length + (header ? 2 : 1);
      if (record.length > limits.maxColumns)
        throw new CsvRefused(`Row ${line} has more than ${limits.maxColumns} columns`);
      if (record.some((value) => value.length > limits.maxFieldChars)) {
        throw new CsvRefused(
          `Row ${line} has a value longer than ${limits.maxFieldChars.toLocaleString("en-US")} characters`,
        );
      }
      if (!header) {
        header = record.map((name) => name.trim());
        continue;
      }
      if (record.every((value) => value === "")) continue;
      if (rows.length >= maxRows)
        throw new CsvRefused(`The file has more than ${maxRows.toLocaleString("en-US")} data rows`);
      rows.push(record);
    }
  } catch (error) {
    body.unpipe(parser);
    body.resume();
    if (error instanceof CsvRefused) throw error;
    if ((error as { code?: string }).code === "CSV_MAX_RECORD_SIZE") {
      throw new CsvRefused(
        `A row is longer than ${rowChars.toLocaleString("en-US")} characters (a value is limited to ${limits.maxFieldChars.toLocaleString("en-US")})`,
      );
    }
    throw new CsvRefused(`Malformed CSV: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!header) throw new CsvRefused("The file is empty: a header row is required");
  return { header, rows };
}

/** Reads an uploaded CSV from the object store and removes it (it served its one request). */
export async function readUploadedCsv(
  objects: ObjectStore,
  file: UploadedFile,
  maxRows: number,
  limits: CsvLimits,
): Promise<CsvTable> {
  try {
    const stored = await objects.get(file.objectKey);
    return await readCsv(stored.body, maxRows, limits);
  } finally {
    await objects.delete(file.objectKey).catch(() => undefined);
  }
}

/** Index of the first column named one of `names` (case-insensitive), or -1. */
export function columnIndex(header: readonly string[], ...names: string[]): number {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  return header.findIndex((name) => wanted.has(name.toLowerCase()));
}
