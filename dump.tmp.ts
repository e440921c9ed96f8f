import { writeFileSync } from "node:fs";
import { API_SERVICES } from "./gateway/src/services.js";
import { collectRoutes } from "./gateway/src/transcoder/routes.js";
import { buildOpenApi } from "./gateway/src/openapi/document.js";
writeFileSync("/tmp/apidoc-openapi.json", JSON.stringify(buildOpenApi(collectRoutes(API_SERVICES)), null, 2));
