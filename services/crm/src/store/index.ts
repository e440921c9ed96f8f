import { ContactStore } from "./contacts.js";
import { LeadStore } from "./leads.js";
import { PortalTokenStore } from "./portal-tokens.js";

/** The CRM's stores, made once per service and handed to every handler group and consumer. */
export interface CrmStores {
  contacts: ContactStore;
  leads: LeadStore;
  portalTokens: PortalTokenStore;
}

export function crmStores(): CrmStores {
  return { contacts: new ContactStore(), leads: new LeadStore(), portalTokens: new PortalTokenStore() };
}
