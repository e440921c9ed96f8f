import { AlertStore } from "./alerts.js";
import { AppointmentTypeStore } from "./appointment-types.js";
import { AppointmentStore } from "./appointments.js";
import { DispatchStore } from "./dispatches.js";
import { ServiceProviderStore } from "./providers.js";
import { ReservationStore } from "./reservations.js";
import { ScheduleStore } from "./schedules.js";
import { SlotHoldStore } from "./slot-holds.js";
import { TechnicianStore } from "./technicians.js";

/** The field-operations service's stores, made once per service and handed to every handler group and consumer. */
export interface FieldopsStores {
  providers: ServiceProviderStore;
  technicians: TechnicianStore;
  schedules: ScheduleStore;
  dispatches: DispatchStore;
  alerts: AlertStore;
  appointmentTypes: AppointmentTypeStore;
  appointments: AppointmentStore;
  slotHolds: SlotHoldStore;
  reservations: ReservationStore;
}

export function fieldopsStores(): FieldopsStores {
  return {
    providers: new ServiceProviderStore(),
    technicians: new TechnicianStore(),
    schedules: new ScheduleStore(),
    dispatches: new DispatchStore(),
    alerts: new AlertStore(),
    appointmentTypes: new AppointmentTypeStore(),
    appointments: new AppointmentStore(),
    slotHolds: new SlotHoldStore(),
    reservations: new ReservationStore(),
  };
}
