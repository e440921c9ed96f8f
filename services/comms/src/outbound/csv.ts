import type { Readable } from "node:stream";
import { parse } from "csv-parse";
import type { ObjectStore } from "@voiceops/platform";
import type { UploadedFile } from "@voiceops/proto/voiceops/api/v1/upload_pb";

/** A CSV file the API cannot read as a whole (no header, malformed, too many rows). */
export class CsvRefused extends Error {}

export interface CsvTable {
  /** Header names as written (trimmed), in column order. */
  header: string[];
  /** Data rows, empty lines skipped; row i is data row i + 1. */
  rows: string[][];
}

/**
 * Reads a CSV stream with a real parser (quotes, embedded commas and newlines, a BOM), keeping
 * at most `maxRows` data rows: one more refuses the whole file, so nothing is half imported.
 */
export async function readCsv(body: Readable, maxRows: number): Promise<CsvTable> {
  const parser = parse({ bom: true, skip_empty_lines: true, relax_column_count: true, trim: true, max_record_size: 256 * 1024 });
  body.on("error", (error) => parser.destroy(error));
  body.pipe(parser);
  let header: string[] | undefined;
  const rows: string[][] = [];
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = record.map((name) => name.trim());
        continue;
      }
      if (record.every((value) => value === "")) continue;
      if (rows.length >= maxRows) throw new CsvRefused(`The file has more than ${maxRows.toLocaleString("en-US")} data rows`);
      rows.push(record);
    }
  } catch (error) {
    body.unpipe(parser);
    body.resume();
    if (error instanceof CsvRefused) throw error;
    throw new CsvRefused(`Malformed CSV: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!header) throw new CsvRefused("The file is empty: a header row is required");
  return { header, rows };
}

/** Reads an uploaded CSV from the object store and removes it (it served its one request). */
export async function readUploadedCsv(objects: ObjectStore, file: UploadedFile, maxRows: number): Promise<CsvTable> {
  try {
    const stored = await objects.get(file.objectKey);
    return await readCsv(stored.body, maxRows);
  } finally {
    await objects.delete(file.objectKey).catch(() => undefined);
  }
}

/** Index of the first column named one of `names` (case-insensitive), or -1. */
export function columnIndex(header: readonly string[], ...names: string[]): number {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  return header.findIndex((name) => wanted.has(name.toLowerCase()));
}
