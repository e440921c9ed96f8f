import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

// The dashboard, served by the gateway at /app from dist/web (gateway/src/dashboard.ts).
export default defineConfig({
  base: "/app/",
  plugins: [preact()],
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    sourcemap: false,
    target: "es2020",
    reportCompressedSize: false,
  },
});
