import { DeliveryStore } from "./deliveries.js";
import { EndpointStore } from "./endpoints.js";

/** The webhooks service's stores, made once and handed to handlers, consumers and workers. */
export interface WebhookStores {
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
}

export function webhookStores(): WebhookStores {
  return { endpoints: new EndpointStore(), deliveries: new DeliveryStore() };
}
