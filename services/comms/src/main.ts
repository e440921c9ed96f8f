import { runServiceMain } from "@voiceops/platform";
import { commsService } from "./index.js";

await runServiceMain(commsService);
