/**
 * Charges of a request's further cost (services/rate-limits.ts `charge`, http/request-cost.ts) on the
 * counters in memory, with leases on (database/rate-leases.ts) as a busy key has them: all or nothing,
 * never past the limit, and the remaining units a request is told always exact on one instance, whatever
 * mix of requests and charges arrives (property). The same code counts in the database and Redis
 * (test/api/cost-accounting.test.ts).
 */
import fc from 'fast-check';
import type { Core } from '@strapi/strapi';
import rateLimits from '../../src/plugins/public-api/server/src/services/rate-limits';

const serviceWith = (leaseMs: number) => {
  const errors: string[] = [];
  const strapi = {
    config: {
      get: () => ({ rateLimitStore: 'memory', rateLimitPrefix: `charges-${Math.random()}`, rateLimitLeaseMs: leaseMs, redisUrl: '' }),
    },
    log: { error: (message: string) => errors.push(message), warn: (message: string) => errors.push(message) },
  } as unknown as Core.Strapi;
  return { service: rateLimits({ strapi }), errors };
};

let id = 0;
const nextKey = () => ({ kind: 'key' as const, id: `key-${(id += 1)}` });

test('a charge the key can pay is spent; one it cannot is refused whole and spends nothing', async () => {
  const { service, errors } = serviceWith(0);
  const limit = { requests: 10, window: 60 };
  const key = nextKey();
  const entry = (await service.count(key, limit))!;
  expect(entry.remaining).toBe(9);
  const paid = (await service.charge(key, limit, 6, entry))!;
  expect(paid).toMatchObject({ charged: true, count: { remaining: 3, exceeded: false } });
  const second = (await service.count(key, limit))!;
  expect(second.remaining).toBe(2);
  // More than is left: refused without a count, nothing spent.
  expect(await service.charge(key, limit, 3, second)).toMatchObject({ charged: false, count: { remaining: 2 } });
  // Told more than is left (another request spent it meanwhile): counted, past the limit, given back.
  const third = (await service.count(key, limit))!;
  expect(third.remaining).toBe(1);
  expect(await service.charge(key, limit, 2, { ...third, remaining: 5 })).toMatchObject({ charged: false, count: { remaining: 1 } });
  expect(await service.charge(key, limit, 1, third)).toMatchObject({ charged: true, count: { remaining: 0 } });
  expect(errors).toEqual([]);
  await service.stop();
});

test('requests and charges of any mix, leases on: never past the limit, and every remaining told is exact (property)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 300 }),
      fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 250 }),
      async (requests, charges) => {
        // Leases over a whole second: a run of requests here leases many points at a time.
        const { service, errors } = serviceWith(1_000);
        const limit = { requests, window: 60 };
        const key = nextKey();
        let spent = 0;
        for (const points of charges) {
          const entry = await service.count(key, limit);
          if (!entry) throw new Error('not counted');
          if (entry.exceeded) {
            // Refused at entry: only once everything was spent.
            expect(spent).toBe(requests);
            expect(entry.remaining).toBe(0);
            continue;
          }
          spent += 1;
          expect(entry.remaining).toBe(requests - spent);
          const charge = await service.charge(key, limit, points, entry);
          if (!charge) throw new Error('not charged');
          if (charge.charged) spent += points;
          else expect(points).toBeGreaterThan(requests - spent);
          expect(spent).toBeLessThanOrEqual(requests);
          expect(charge.count.remaining).toBe(requests - spent);
        }
        expect(errors).toEqual([]);
        await service.stop();
      },
    ),
    { numRuns: 60 },
  );
});
