import { runServiceMain } from "@voiceops/platform";
import { analyticsService } from "./index.js";

await runServiceMain(analyticsService);
