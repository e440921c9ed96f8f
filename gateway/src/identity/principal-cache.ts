import type { EventBus } from "@voiceops/platform";
import type { IdentityStore, Principal } from "./store.js";

/** Subject on which a gateway tells every replica to forget cached keys. */
const IDENTITY_INVALIDATE_SUBJECT = "identity.invalidate";

interface Entry {
  principal: Principal | undefined;
  loadedAt: number;
}

/**
 * API-key lookups, cached by key hash. An entry lives at most `ttlMs` (so a revocation made
 * anywhere takes effect on every replica within that time even if a broadcast is lost), and a
 * revocation or organization change is also broadcast so replicas drop entries at once.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Principal | undefined>>();

  constructor(
    private readonly store: IdentityStore,
    private readonly bus: EventBus,
    private readonly ttlMs = 4_000,
    private readonly maxEntries = 50_000,
  ) {
    bus.onBroadcast(IDENTITY_INVALIDATE_SUBJECT, (data) =>
      this.forget(JSON.parse(Buffer.from(data).toString()) as { keyId?: string; orgId?: string }),
    );
  }

  /** The principal of a key, by the key's hash (hashApiKey). */
  async lookup(hash: string, now = Date.now()): Promise<Principal | undefined> {
    const cached = this.entries.get(hash);
    let principal: Principal | undefined;
    if (cached && now - cached.loadedAt < this.ttlMs) {
      principal = cached.principal;
    } else {
      let pending = this.inflight.get(hash);
      if (!pending) {
        pending = this.store.principalByHash(hash).finally(() => this.inflight.delete(hash));
        this.inflight.set(hash, pending);
      }
      principal = await pending;
      this.remember(hash, principal, now);
    }
    if (principal?.expiresAt !== undefined && principal.expiresAt <= now) return undefined;
    return principal;
  }

  /** Drops entries of a key or an organization here and on every other replica. */
  invalidate(target: { keyId?: string; orgId?: string }): void {
    this.forget(target);
    this.bus.broadcast(IDENTITY_INVALIDATE_SUBJECT, Buffer.from(JSON.stringify(target)));
  }

  private forget(target: { keyId?: string; orgId?: string }): void {
    for (const [hash, entry] of this.entries) {
      const p = entry.principal;
      if (p && ((target.keyId && p.keyId === target.keyId) || (target.orgId && p.orgId === target.orgId))) {
        this.entries.delete(hash);
      }
    }
  }

  private remember(hash: string, principal: Principal | undefined, now: number): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(hash);
    this.entries.set(hash, { principal, loadedAt: now });
  }
}
