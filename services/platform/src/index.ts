// The platform's public API: what the services, the gateway and the tools import from
// @voiceops/platform. A module's other exports are its own (or the platform's) business.
export { ConfigError, defaultNatsPrefix, envFlag, envInt, envOptional, envString, readInfraConfig } from "./config.js";
export { createLogger } from "./log.js";
export type { Logger } from "./log.js";
export { isUuid, newId } from "./ids.js";
export { looksLikePhone, normalizePhone, phoneDigits } from "./phone.js";
export { endOfLocalDay, isCalendarDate, isoInstant, localDate, shiftDate, zoneOffsetMinutes } from "./time.js";
export {
  DEFAULT_BUSINESS_HOURS,
  WEEKDAYS,
  encodeBusinessHours,
  isOpenAt,
  openingIntervalsOn,
  parseBusinessHours,
} from "./business-hours.js";
export type { WeeklyHours } from "./business-hours.js";
export { ManualClock, systemClock } from "./clock.js";
export type { Clock } from "./clock.js";
export { runPeriodically } from "./periodic.js";
export { hashSecret, newSecret } from "./secrets.js";
export { ObjectNotFoundError, ObjectTooLargeError } from "./objects/store.js";
export type { ObjectStore } from "./objects/store.js";
export { UrlSigner } from "./objects/signing.js";
export { FileObjectStore } from "./objects/file-store.js";
export { fileUrlSigner, openObjectStore } from "./objects/open.js";
export {
  indexedSearchPattern,
  likePattern,
  organizationFilter,
  phoneDigitsMatch,
  prefixPattern,
  textSearch,
} from "./sql.js";
export { httpRequests, registry, webhookDeliveryAttempts } from "./metrics.js";
export { SERVICES, SERVICE_NAMES } from "./registry.js";
export { enumFilter, enumFromJson, enumJsonValues, enumToJson, fieldRules, methodRules } from "./proto-options.js";
export { applyDefaults, withDefaults } from "./defaults.js";
export { columnValues, requiredText } from "./column-values.js";
export { PgErrorCode, isDatabaseUnavailable, pgErrorCode } from "./db/database.js";
export type { Database, Queryable } from "./db/database.js";
export { migrate, readMigrations } from "./db/migrate.js";
export type { EventBus, Subscription } from "./bus/bus.js";
export { decodeEvent, newEvent } from "./events/envelope.js";
export type { DomainEvent, ReceivedEvent } from "./events/envelope.js";
export { handlerOf, startConsumer } from "./events/consumer.js";
export type { AnyEventConsumer, EventConsumer, StreamConsumer, TypedHandler } from "./events/consumer.js";
export { MetadataKeys, ROLES, isComponentAuthFailure, orgHeaders, orgOf } from "./rpc/org-context.js";
export type { OrgContext, Role } from "./rpc/org-context.js";
export { foundOrUndefined } from "./rpc/client.js";
export { peer } from "./rpc/peer.js";
export { isAnswered } from "./rpc/errors.js";
export { defineErrors, errorReason } from "./rpc/named-errors.js";
export { startRpcServer, type RpcServer } from "./rpc/server.js";
export {
  FAST_PATH_PARTS,
  JSON_ANSWER_HEADER,
  appServerClasses,
  asksForJsonAnswers,
  configureProtobufTextEncoding,
  connectUnaryTransport,
  fastPath,
  jsonAnswerBytes,
  useNodeUtf8Encoder,
} from "./fast-path/index.js";
export { TIMESTAMP_RANGE, isEmail, timestampInRange, validateMessage } from "./validation/validate.js";
export {
  aboveMax,
  badFormat,
  belowMin,
  invalidArgument,
  invalidValue,
  notAllowed,
  notFound,
  nulCharacter,
  referenceNotFound,
  required,
  tooFewItems,
  tooLong,
  tooManyItems,
  tooShort,
  violation,
  violationsOf,
  wrongType,
} from "./validation/violations.js";
export type { ValueType, Violation, ViolationContext } from "./validation/violations.js";
export { databaseState, openBus, openDatabase } from "./runtime.js";
export { PeerRegistry, isServiceModule, startService } from "./service.js";
export type { Emit, RunningService, ServiceContext, ServiceModule } from "./service.js";
export { peersFromEnv, runServiceMain } from "./standalone.js";
export { onShutdown, runMain, shutdownDelayMs } from "./shutdown.js";
export { drainableHttpServer } from "./http-server.js";
export { blankToNull, updatedFields } from "./updates.js";
export { phoneInput } from "./validation/phone-input.js";
export { selectCountedPage, selectPage, selectWindow } from "./db/page.js";
export { pageAnswer, pageOffset, pageRequest } from "./paging.js";
export {
  IDEMPOTENCY_MESSAGES,
  IDEMPOTENCY_RETRY_AFTER_SECONDS,
  IdempotencyMetadata,
  idempotencyMetadata,
  idempotencyRefusalOf,
  isReplayed,
  parseIdempotencyKey,
  requestFingerprint,
  toolCallFingerprint,
} from "./idempotency/keys.js";
export type { FingerprintBody } from "./idempotency/keys.js";
export { IDEMPOTENCY_TABLE_NAME, claimKey, freeKey, keepAnswer } from "./idempotency/records.js";
export { idempotencyTtlSeconds } from "./idempotency/prune.js";
export { writeField, writeMessage } from "./rest-json.js";
export { WEBHOOK_EVENT_SOURCES, WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_TYPE, isWebhookEventType } from "./webhook-events.js";
export type { WebhookEventSource } from "./webhook-events.js";
export { isBlockedAddress, isLinkLocalOrUnspecified, isLocalHostname, literalAddress } from "./address-policy.js";
export { startTracing } from "./tracing/sdk.js";
export { tracingOn, tracer, contextFromTraceparent, activeTraceparent } from "./tracing/state.js";
export { tracedRequest } from "./tracing/outbound.js";
