// Starts the extraction process (extract-child.ts) from the TypeScript sources, through tsx: the
// tests and `tsx` runs use this; the built bundles start dist/knowledge-extract.js instead.
import { tsImport } from "tsx/esm/api";

await tsImport("./extract-child.ts", import.meta.url);
