import { runServiceMain } from "@voiceops/platform";
import { webhooksService } from "./index.js";

await runServiceMain(webhooksService);
