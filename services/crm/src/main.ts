import { runServiceMain } from "@voiceops/platform";
import { crmService } from "./index.js";

await runServiceMain(crmService);
