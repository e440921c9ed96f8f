import { create } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  columnValues,
  invalidArgument,
  newEvent,
  orgOf,
  notFound,
  referenceNotFound,
  type DomainEvent,
  type OrgContext,
  type ServiceContext,
  type Violation,
  pageAnswer,
  pageRequest,
} from "@voiceops/platform";
import {
  UrgentAlertCreatedSchema,
  UrgentAlertDeletedSchema,
  UrgentAlertUpdatedSchema,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_events_pb";
import {
  ListUrgentAlertsRequestSchema,
  UrgentAlertFieldsSchema,
  type CreateUrgentAlertRequest,
  type DeleteUrgentAlertRequest,
  type FieldopsService,
  type GetUrgentAlertRequest,
  type ListUrgentAlertsRequest,
  type UpdateUrgentAlertRequest,
  type UrgentAlertFields,
} from "@voiceops/proto/voiceops/fieldops/v1/fieldops_service_pb";
import { ALERT_FIELDS, toUrgentAlert, type AlertRow, type AlertValues } from "../store/alerts.js";
import type { FieldopsStores } from "../store/index.js";
import type { PeerLookups } from "../peers.js";

/** The event of an alert written by a request or a consumer: fieldops.urgent_alert.created or .updated. */
export function alertEvent(orgId: string, verb: "created" | "updated", row: AlertRow): DomainEvent {
  const alert = toUrgentAlert(row);
  return verb === "created"
    ? newEvent(
        orgId,
        "fieldops.urgent_alert.created",
        UrgentAlertCreatedSchema,
        create(UrgentAlertCreatedSchema, { alert }),
      )
    : newEvent(
        orgId,
        "fieldops.urgent_alert.updated",
        UrgentAlertUpdatedSchema,
        create(UrgentAlertUpdatedSchema, { alert }),
      );
}

/** Every column of an alert from the create (and replace) body: omitted optional fields are null. */
function alertValues(fields: UrgentAlertFields | undefined): AlertValues {
  // Every column is named and none is not_null, so each has a value.
  return columnValues<AlertValues>(UrgentAlertFieldsSchema, fields ?? create(UrgentAlertFieldsSchema), ALERT_FIELDS)
    .values as AlertValues;
}

export function alertHandlers(service: ServiceContext, stores: FieldopsStores, lookups: PeerLookups) {
  const { db, clock } = service;
  const { alerts } = stores;

  /** 422 entries for links to records not in the organization, asked of the services owning them. */
  async function checkLinks(org: OrgContext, values: AlertValues): Promise<void> {
    const violations: Violation[] = [];
    const [contactFound, request] = await Promise.all([
      values.contact_id === null ? true : lookups.contactExists(org, values.contact_id),
      values.service_request_id === null ? undefined : lookups.serviceRequest(org, values.service_request_id),
    ]);
    if (!contactFound) violations.push(referenceNotFound("alert.contact_id", "contact", values.contact_id));
    if (values.service_request_id !== null && !request) {
      violations.push(referenceNotFound("alert.service_request_id", "service request", values.service_request_id));
    }
    if (violations.length > 0) throw invalidArgument(violations);
  }

  return {
    async listUrgentAlerts(req: ListUrgentAlertsRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const paging = pageRequest(ListUrgentAlertsRequestSchema, req);
      const listing = await alerts.list(db, org.orgId, {
        ...paging,
        location: req.location?.trim() || undefined,
        alertType: req.alertType?.trim() || undefined,
        resolutionStatus: req.resolutionStatus?.trim() || undefined,
      });
      return pageAnswer(paging, listing, toUrgentAlert);
    },

    async createUrgentAlert(req: CreateUrgentAlertRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const values = alertValues(req.alert);
      await checkLinks(org, values);
      const row = await service.write(ctx, async (tx, emit) => {
        const inserted = await alerts.insert(tx, org.orgId, values, clock.now());
        emit(alertEvent(org.orgId, "created", inserted));
        return inserted;
      });
      return { alert: toUrgentAlert(row) };
    },

    async getUrgentAlert(req: GetUrgentAlertRequest, ctx: HandlerContext) {
      const row = await alerts.get(db, orgOf(ctx).orgId, req.alertId);
      if (!row) throw notFound("Urgent alert");
      return { alert: toUrgentAlert(row) };
    },

    async updateUrgentAlert(req: UpdateUrgentAlertRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      const values = alertValues(req.alert);
      // An unknown alert is a 404 before any check of what the body links to.
      if (!(await alerts.get(db, org.orgId, req.alertId))) throw notFound("Urgent alert");
      await checkLinks(org, values);
      const row = await service.write(ctx, async (tx, emit) => {
        const replaced = await alerts.replace(tx, org.orgId, req.alertId, values, clock.now());
        if (!replaced) throw notFound("Urgent alert");
        emit(alertEvent(org.orgId, "updated", replaced));
        return replaced;
      });
      return { alert: toUrgentAlert(row) };
    },

    async deleteUrgentAlert(req: DeleteUrgentAlertRequest, ctx: HandlerContext) {
      const org = orgOf(ctx);
      await service.write(ctx, async (tx, emit) => {
        const alertId = await alerts.delete(tx, org.orgId, req.alertId);
        if (!alertId) throw notFound("Urgent alert");
        emit(
          newEvent(
            org.orgId,
            "fieldops.urgent_alert.deleted",
            UrgentAlertDeletedSchema,
            create(UrgentAlertDeletedSchema, { alertId }),
          ),
        );
      });
      return {};
    },
  } satisfies Partial<ServiceImpl<typeof FieldopsService>>;
}
