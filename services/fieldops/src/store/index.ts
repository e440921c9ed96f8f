import { AlertStore } from "./alerts.js";
import { DispatchStore } from "./dispatches.js";
import { ServiceProviderStore } from "./providers.js";
import { ScheduleStore } from "./schedules.js";
import { TechnicianStore } from "./technicians.js";

/** The field-operations service's stores, made once per service and handed to every handler group and consumer. */
export interface FieldopsStores {
  providers: ServiceProviderStore;
  technicians: TechnicianStore;
  schedules: ScheduleStore;
  dispatches: DispatchStore;
  alerts: AlertStore;
}

export function fieldopsStores(): FieldopsStores {
  return {
    providers: new ServiceProviderStore(),
    technicians: new TechnicianStore(),
    schedules: new ScheduleStore(),
    dispatches: new DispatchStore(),
    alerts: new AlertStore(),
  };
}
