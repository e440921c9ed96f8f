import { createRequire } from "node:module";
import { dirname } from "node:path";
import express, { type Express } from "express";

/** Swagger UI's files, as the swagger-ui-dist package ships them (no CDN). */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/**
 * The API reference at /docs: Swagger UI over the OpenAPI document, with "Try it out" and the
 * document's API-key scheme under "Authorize".
 */
export function mountDocs(app: Express, specUrl: string): void {
  // index: false: the package's own index.html would load the Petstore example.
  app.use("/docs/assets", express.static(SWAGGER_UI_DIR, { index: false, maxAge: "1h" }));
  app.get("/docs/init.js", (_req, res) => {
    res.type("text/javascript").send(initScript(specUrl));
  });
  app.get("/docs", (_req, res) => {
    res.type("html").send(PAGE);
  });
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head><body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;

function initScript(specUrl: string): string {
  return `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(specUrl)},
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
  layout: "StandaloneLayout",
  // The key typed under "Authorize" survives a reload of the page.
  persistAuthorization: true,
  displayRequestDuration: true,
  filter: true,
  validatorUrl: null,
});
`;
}
