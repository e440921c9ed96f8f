import { runServiceMain } from "@voiceops/platform";
import { fieldopsService } from "./index.js";

await runServiceMain(fieldopsService);
