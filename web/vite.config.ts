import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

// The dashboard, served by the gateway at /app from dist/web (gateway/src/dashboard.ts), and the
// customer portal (portal.html), served at /portal/<token> (gateway/src/portal/page.ts); the two
// share their assets under /app/assets.
export default defineConfig({
  base: "/app/",
  plugins: [preact()],
  input: { index: "index.html", portal: "portal.html" },
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    sourcemap: false,
    target: "es2020",
    reportCompressedSize: false,
  },
});
