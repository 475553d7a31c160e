/**
 * trigger_ids the local Slack hands out with interactions: valid for 3 seconds and once, like Slack's
 * (`expired_trigger_id`, `exchanged_trigger_id`, `invalid_trigger_id`).
 */
import type { IdGenerator } from './ids.js';

export interface TriggerGrant {
  user: string;
  channel?: string;
  issuedAt: number;
}

export const TRIGGER_TTL_MS = 3000;

export class TriggerIds {
  private readonly grants = new Map<string, TriggerGrant & { used: boolean }>();

  constructor(
    private readonly ids: IdGenerator,
    private readonly now: () => number,
  ) {}

  issue(user: string, channel?: string): string {
    const at = this.now();
    const id = this.ids.triggerId(at);
    this.grants.set(id, { user, channel, issuedAt: at, used: false });
    // Forget grants long past their life so the map stays small.
    for (const [key, grant] of this.grants) {
      if (at - grant.issuedAt > 60_000) this.grants.delete(key);
    }
    return id;
  }

  /** Uses a trigger id; returns the grant or the Slack error code. */
  exchange(id: string): { ok: true; grant: TriggerGrant } | { ok: false; error: string } {
    const grant = this.grants.get(id);
    if (!grant) return { ok: false, error: 'invalid_trigger_id' };
    if (this.now() - grant.issuedAt > TRIGGER_TTL_MS) return { ok: false, error: 'expired_trigger_id' };
    if (grant.used) return { ok: false, error: 'exchanged_trigger_id' };
    grant.used = true;
    return { ok: true, grant };
  }
}
