/**
 * What the preconditions read once from REST: the application's owners (the owner, or the members of its team:
 * GET /applications/@me) and who owns each SKU's entitlements (GET /applications/{application.id}/skus, protocol
 * §13.3: a guild for GUILD_SUBSCRIPTION SKUs, the user otherwise). A failed read is not kept: the next question
 * reads again.
 */
import { getCurrentApplication, listSkus, type RestRequester } from '../../rest/index.js';

/** SKU flag GUILD_SUBSCRIPTION (protocol §13.3). */
const GUILD_SUBSCRIPTION = 1 << 7;

export class ApplicationDirectory {
  private owners: Promise<ReadonlySet<string>> | null = null;
  private skus: Promise<ReadonlyMap<string, number>> | null = null;

  constructor(
    private readonly rest: RestRequester,
    private readonly applicationId: string,
  ) {}

  /** Read the owners now (at startup), so that the first `owners` precondition does not wait for them. */
  preload(): Promise<void> {
    return this.ownerIds().then(() => undefined);
  }

  async isOwner(userId: string): Promise<boolean> {
    return (await this.ownerIds()).has(userId);
  }

  /** Who must hold an entitlement to the SKU: `guild` for a guild subscription, `user` otherwise. */
  async ownerOfSku(skuId: string): Promise<'user' | 'guild'> {
    const flags = (await this.skuFlags()).get(skuId) ?? 0;
    return (flags & GUILD_SUBSCRIPTION) !== 0 ? 'guild' : 'user';
  }

  private ownerIds(): Promise<ReadonlySet<string>> {
    this.owners ??= getCurrentApplication(this.rest).then((app) => {
      const ids = new Set<string>();
      if (app.team !== null && app.team !== undefined) for (const m of app.team.members) ids.add(m.user.id);
      else if (app.owner !== undefined) ids.add(app.owner.id);
      return ids;
    });
    const pending = this.owners;
    pending.catch(() => {
      if (this.owners === pending) this.owners = null;
    });
    return pending;
  }

  private skuFlags(): Promise<ReadonlyMap<string, number>> {
    this.skus ??= listSkus(this.rest, this.applicationId).then((list) => new Map(list.map((s) => [s.id, s.flags])));
    const pending = this.skus;
    pending.catch(() => {
      if (this.skus === pending) this.skus = null;
    });
    return pending;
  }
}
