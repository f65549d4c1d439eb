/**
 * The pure parts of the webhook fan-out at scale (issue 18): which endpoints a batch of changes concerns
 * (the subscription index), which endpoints changed between two readings, and the batching of send
 * outcomes (one transaction per batch on SQLite).
 */
import fc from 'fast-check';
import { createSettleBatcher } from '../../src/plugins/public-api/server/src/services/webhooks/settle-batcher';
import {
  changedSince,
  endpointsFor,
  indexSubscriptions,
  type Subscription,
} from '../../src/plugins/public-api/server/src/webhooks/subscriptions';

const UIDS: Record<string, string> = {
  'native:events': 'api::event.event',
  'native:pages': 'api::page.page',
  'cms:acme:news': 'api::article.article',
  'cms:other:news': 'api::article.article',
};
const uidOf = (id: string) => UIDS[id];

describe('the subscription index', () => {
  const subscriptions: Subscription[] = [
    { id: 1, resources: ['native:events'] },
    { id: 2, resources: ['native:pages', 'native:events'] },
    { id: 3, resources: [] },
    { id: 4, resources: ['cms:acme:news', 'cms:other:news'] },
    { id: 5, resources: ['native:gone'] },
  ];
  const index = indexSubscriptions(subscriptions, uidOf);

  test('a batch concerns the endpoints of its content types and those that take everything, each once, in id order', () => {
    expect(endpointsFor(index, ['api::event.event'])).toEqual([1, 2, 3]);
    expect(endpointsFor(index, ['api::page.page'])).toEqual([2, 3]);
    expect(endpointsFor(index, ['api::article.article', 'api::event.event'])).toEqual([1, 2, 3, 4]);
    // Two resources of one content type: the endpoint once.
    expect(index.byUid.get('api::article.article')).toEqual([4]);
  });

  test('a content type nobody lists concerns only those that take everything; a resource that is gone matches nothing', () => {
    expect(endpointsFor(index, ['api::building.building'])).toEqual([3]);
    expect(endpointsFor(index, [])).toEqual([3]);
    expect([...index.byUid.values()].flat()).not.toContain(5);
  });

  test('property: an endpoint is a candidate exactly when it takes everything or lists a resource of a changed type', () => {
    const ids = Object.keys(UIDS);
    fc.assert(
      fc.property(fc.array(fc.subarray(ids), { maxLength: 30 }), fc.subarray([...new Set(Object.values(UIDS))]), (lists, changed) => {
        const subs = lists.map((resources, i) => ({ id: i + 1, resources }));
        const got = endpointsFor(indexSubscriptions(subs, uidOf), changed);
        const expected = subs
          .filter((sub) => sub.resources.length === 0 || sub.resources.some((id) => changed.includes(UIDS[id]!)))
          .map((sub) => sub.id);
        expect(got).toEqual(expected);
      }),
    );
  });

  test('changed: endpoints new or listing other resources; order of the list does not count', () => {
    const before: Subscription[] = [
      { id: 1, resources: ['native:events', 'native:pages'] },
      { id: 2, resources: ['native:events'] },
      { id: 3, resources: [] },
    ];
    const after: Subscription[] = [
      { id: 1, resources: ['native:pages', 'native:events'] },
      { id: 2, resources: [] },
      { id: 4, resources: ['native:events'] },
    ];
    expect(changedSince(before, after)).toEqual([2, 4]);
    expect(changedSince([], after)).toEqual([1, 2, 4]);
    expect(changedSince(after, after)).toEqual([]);
  });
});

describe('the settle batcher', () => {
  test('outcomes arriving while a batch is written wait for the next one; each caller resumes after its batch', async () => {
    const batches: string[][] = [];
    let current: string[] | null = null;
    const batch = async (work: () => Promise<void>) => {
      current = [];
      await work();
      batches.push(current);
      current = null;
    };
    const settle = createSettleBatcher(batch, () => undefined);
    const record = (name: string) => async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      current!.push(name);
    };
    const first = settle(record('a'));
    const rest = [settle(record('b')), settle(record('c'))];
    await first;
    expect(batches).toEqual([['a']]);
    await Promise.all(rest);
    expect(batches).toEqual([['a'], ['b', 'c']]);
  });

  test('a batch holds at most its bound; a failing outcome is reported and the others are written', async () => {
    const sizes: number[] = [];
    const errors: string[] = [];
    let n = 0;
    const batch = async (work: () => Promise<void>) => {
      n = 0;
      await work();
      sizes.push(n);
    };
    const settle = createSettleBatcher(batch, (error) => errors.push(error.message), 3);
    const ok = async () => {
      n += 1;
    };
    const bad = async () => {
      n += 1;
      throw new Error('lost the claim');
    };
    await Promise.all([settle(ok), settle(ok), settle(bad), settle(ok), settle(ok), settle(ok), settle(ok)]);
    expect(sizes).toEqual([1, 3, 3]);
    expect(errors).toEqual(['lost the claim']);
  });

  test('a batch that fails as a whole is reported and its callers resume', async () => {
    const errors: string[] = [];
    const settle = createSettleBatcher(
      async () => {
        throw new Error('database is locked');
      },
      (error) => errors.push(error.message),
    );
    await Promise.all([settle(async () => undefined), settle(async () => undefined)]);
    expect(errors).toEqual(['database is locked', 'database is locked']);
  });
});
