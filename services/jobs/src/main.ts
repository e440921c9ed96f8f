import { runServiceMain } from "@voiceops/platform";
import { jobsService } from "./index.js";

await runServiceMain(jobsService);
