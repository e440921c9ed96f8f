/** The event bus every service uses: NATS JetStream when NATS_URL is set, else in-process. */

export interface BusMessage {
  /** Subject, e.g. "crm.contact.created"; its first segment names the stream. */
  subject: string;
  /** Event id; JetStream drops a second message with the same id. */
  id: string;
  data: Uint8Array;
  /**
   * W3C trace context, when tracing is on: the publish's (the NATS `traceparent` header); handed
   * to a handler, that of the message's own consumer span, which its processing continues.
   */
  traceparent?: string;
}

type BusHandler = (message: BusMessage) => Promise<void>;

export interface Subscription {
  stop(): Promise<void>;
}

export interface DurableSubscription {
  /** Durable consumer name; every replica of a service shares it, so each event is handled once. */
  durable: string;
  /** Subject filter, e.g. "crm.contact.deleted" or "crm.lead.*" (one stream). */
  subject: string;
  handler: BusHandler;
  /**
   * Applies several messages at once, in order; the in-process bus hands a durable that has it
   * the messages of one publishAll() this way (a consumer applies them in one transaction).
   */
  batchHandler?: (messages: BusMessage[]) => Promise<void>;
  /** Where a new durable starts: the whole retained stream (default) or only new messages. */
  startAt?: "all" | "new";
  /** Let the bus delete the durable after this long without a member (throwaway observers). */
  expireAfterIdleMs?: number;
}

export interface EventBus {
  readonly kind: "nats" | "memory";
  /** Publishes durably; resolves once the bus has stored the message, throws when it cannot. */
  publish(message: BusMessage): Promise<void>;
  /**
   * Publishes messages in order as one delivery (the in-process bus only: each durable gets its
   * share at once). Throws if a handler fails; durables may have applied their share by then,
   * and a redelivery is safe (consumers skip events they have seen).
   */
  publishAll?(messages: BusMessage[]): Promise<void>;
  /** Delivers every message on the subjects at least once to one member of the durable group. */
  subscribe(subscription: DurableSubscription): Promise<Subscription>;
  /** Fire-and-forget fan-out to every replica (cache invalidation); lost when nobody listens. */
  broadcast(subject: string, data: Uint8Array): void;
  onBroadcast(subject: string, handler: (data: Uint8Array) => void): Subscription;
  healthy(): boolean;
  close(): Promise<void>;
}

/** The stream that holds a subject: "crm.contact.created" lives in stream "CRM". */
export function streamOf(subject: string): string {
  const head = subject.split(".", 1)[0];
  if (!head || !/^[a-z][a-z0-9_]*$/.test(head)) throw new Error(`subject ${subject} has no stream prefix`);
  return head.toUpperCase();
}

/** NATS subject matching: "*" is one token, ">" the rest. */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split(".");
  const s = subject.split(".");
  for (let i = 0; i < f.length; i++) {
    if (f[i] === ">") return s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== "*" && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}
