import { ServiceListingStore } from "./listings.js";
import { RequestStore } from "./requests.js";

/** The jobs service's stores, made once per service and handed to every handler group and consumer. */
export interface JobsStores {
  requests: RequestStore;
  listings: ServiceListingStore;
}

export function jobsStores(): JobsStores {
  return { requests: new RequestStore(), listings: new ServiceListingStore() };
}
