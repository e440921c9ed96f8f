import type { DocumentKind } from "./document-kinds.js";
import type { DocumentLimits } from "./document-limits.js";
import { extractDocument } from "./extract.js";

// The extraction process: the parent (isolated-extract.ts) sends it one document at a time over
// IPC and watches its resident memory; it answers with the text, or with why there is none.
// It holds no credentials and opens no connections, and dies with its parent.

interface Job {
  bytes: Uint8Array;
  kind: DocumentKind;
  contentType: string | undefined;
  limits: DocumentLimits;
}

if (!process.send) throw new Error("the extraction process runs as a child with an IPC channel");

process.on("message", async ({ bytes, kind, contentType, limits }: Job) => {
  try {
    const document = await extractDocument(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      kind,
      limits,
      contentType,
    );
    process.send?.({ document });
  } catch (error) {
    const transient = Boolean((error as { transient?: unknown } | undefined)?.transient);
    process.send?.({ error: { message: error instanceof Error ? error.message : String(error), transient } });
  }
});
// The parent gone, this process has nothing left to do.
process.on("disconnect", () => process.exit(0));
