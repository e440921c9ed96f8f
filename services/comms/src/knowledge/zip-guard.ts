import yauzl, { type Entry, type ZipFile } from "yauzl";
import { type DocumentLimits, MB, tooLargeDecompressed } from "./document-limits.js";
import { IngestionError } from "./errors.js";

// A DOCX is a ZIP archive that its parser (mammoth, through JSZip) inflates entry by entry into
// strings. Before it does, the archive is read here: first the sizes and ratios its central
// directory declares, then every entry inflated for real and counted (declared sizes can lie),
// its bytes thrown away as they come.

/** Entries a DOCX may have; real ones have a few dozen, images included. */
const MAX_ENTRIES = 10_000;
/** Entries smaller than this may have any ratio (a run of spaces compresses a lot, and weighs nothing). */
const RATIO_FLOOR_BYTES = MB;

function unreadable(error: unknown): IngestionError {
  return new IngestionError(
    `the DOCX file could not be read: ${error instanceof Error ? error.message : String(error)}`,
    false,
  );
}

function open(bytes: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: false }, (error, zip) =>
      error || !zip ? reject(unreadable(error)) : resolve(zip),
    );
  });
}

function entries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const all: Entry[] = [];
    zip.on("entry", (entry: Entry) => {
      all.push(entry);
      zip.readEntry();
    });
    zip.on("end", () => resolve(all));
    zip.on("error", (error) => reject(unreadable(error)));
    zip.readEntry();
  });
}

/**
 * Inflates one entry, counting its bytes; stops past `budget` and answers how many it had, or
 * refuses an entry that inflates to more than the archive declared.
 */
function inflatedSize(zip: ZipFile, entry: Entry, budget: number): Promise<number> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error || !stream) return reject(unreadable(error));
      let size = 0;
      stream.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > entry.uncompressedSize) {
          stream.destroy();
          reject(
            new IngestionError("the DOCX file is damaged: one of its parts is larger than the archive says", false),
          );
        } else if (size > budget) {
          stream.destroy();
          resolve(size);
        }
      });
      stream.on("end", () => resolve(size));
      stream.on("error", (failure) => reject(unreadable(failure)));
    });
  });
}

/**
 * Refuses a ZIP archive that inflates to more than the limit, declares an entry with a ratio over
 * the limit, or has too many entries; throws an IngestionError saying which.
 */
export async function checkZip(bytes: Buffer, limits: DocumentLimits): Promise<void> {
  const zip = await open(bytes);
  try {
    if (zip.entryCount > MAX_ENTRIES)
      throw new IngestionError(`the DOCX file has more than ${MAX_ENTRIES.toLocaleString("en-US")} parts`, false);
    const all = await entries(zip);
    let declared = 0;
    for (const entry of all) {
      declared += entry.uncompressedSize;
      if (declared > limits.maxDecompressedBytes) throw tooLargeDecompressed(limits);
      const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
      if (entry.uncompressedSize >= RATIO_FLOOR_BYTES && ratio > limits.maxCompressionRatio) {
        throw new IngestionError(
          `the document is compressed more than ${limits.maxCompressionRatio} times over (a decompression bomb)`,
          false,
        );
      }
    }
    let inflated = 0;
    for (const entry of all) {
      if (entry.fileName.endsWith("/")) continue;
      inflated += await inflatedSize(zip, entry, limits.maxDecompressedBytes - inflated);
      if (inflated > limits.maxDecompressedBytes) throw tooLargeDecompressed(limits);
    }
  } finally {
    zip.close();
  }
}
