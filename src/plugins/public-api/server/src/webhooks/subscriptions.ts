/**
 * Which endpoints a batch of changes concerns (pure). The fan-out asks, per batch of journal entries,
 * which enabled endpoints subscribe to the content types the batch touched, and works on those only: an
 * endpoint's cost is proportional to the changes it subscribes to, not to the number of endpoints.
 *
 * - An endpoint lists resource ids (`native:events`, `cms:<website>:<slug>`...); each is backed by one
 *   content type (uid). An endpoint with no resources subscribes to every resource its key may read: it
 *   matches every batch (the key's grants decide later, when the batch is rendered).
 * - A resource that no longer exists matches nothing.
 * - `changedSince` names the endpoints that are new or whose subscription changed between two readings:
 *   they are looked at once whatever the batch (an endpoint turned on again catches up on what it missed).
 */

/** An enabled endpoint as the index holds it. */
export type Subscription = { id: number; resources: readonly string[] };

export type SubscriptionIndex = {
  /** Endpoint ids by content type uid. */
  byUid: ReadonlyMap<string, readonly number[]>;
  /** Endpoints that subscribe to everything their key reads. */
  everything: readonly number[];
};

export const indexSubscriptions = (
  subscriptions: readonly Subscription[],
  uidOf: (resourceId: string) => string | undefined,
): SubscriptionIndex => {
  const byUid = new Map<string, number[]>();
  const everything: number[] = [];
  for (const subscription of subscriptions) {
    if (subscription.resources.length === 0) {
      everything.push(subscription.id);
      continue;
    }
    const uids = new Set(subscription.resources.map(uidOf).filter((uid): uid is string => uid !== undefined));
    for (const uid of uids) byUid.set(uid, [...(byUid.get(uid) ?? []), subscription.id]);
  }
  return { byUid, everything };
};

/** The endpoints that subscribe to any of `uids`, each once, in ascending id order. */
export const endpointsFor = (index: SubscriptionIndex, uids: Iterable<string>): number[] => {
  const ids = new Set(index.everything);
  for (const uid of uids) for (const id of index.byUid.get(uid) ?? []) ids.add(id);
  return [...ids].sort((a, b) => a - b);
};

/** A subscription's identity for change detection: its id and what it lists. */
const signatureOf = (subscription: Subscription) => JSON.stringify([...subscription.resources].sort());

/** Endpoints in `next` that are not in `previous`, or list other resources there. */
export const changedSince = (previous: readonly Subscription[], next: readonly Subscription[]): number[] => {
  const before = new Map(previous.map((subscription) => [subscription.id, signatureOf(subscription)]));
  return next.filter((subscription) => before.get(subscription.id) !== signatureOf(subscription)).map((subscription) => subscription.id);
};
