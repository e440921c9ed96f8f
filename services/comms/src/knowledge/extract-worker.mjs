// Runs text extraction (extract.ts) in a worker thread, so that a hostile or huge document can
// be stopped (time and memory limits) without blocking or crashing the comms process. Plain
// JavaScript, loading the TypeScript module through tsx, so that it starts the same under
// `npm start`, a standalone service and the test runner.
import { parentPort } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

const { extractDocument } = await tsImport("./extract.ts", import.meta.url);

parentPort.on("message", async ({ bytes, kind, contentType }) => {
  try {
    const document = await extractDocument(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), kind, contentType);
    parentPort.postMessage({ document });
  } catch (error) {
    parentPort.postMessage({ error: { message: error instanceof Error ? error.message : String(error), transient: Boolean(error?.transient) } });
  }
});
