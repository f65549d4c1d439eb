/**
 * The kept locales (services/locales.ts, issue 34): past their TTL they are answered at once while one
 * lookup refreshes them in the background, so no read waits for i18n's lookup (on SQLite it waits for
 * whatever write transaction holds Strapi's connection). Deterministic: the clock and every lookup are
 * the test's.
 */
import createLocales, { LOCALES_TTL_MS } from '../../src/plugins/public-api/server/src/services/locales';

/** i18n's locales service, each lookup held until the test answers it. */
const fakeI18n = () => {
  const lookups: { resolve: (codes: string[]) => void; reject: (error: Error) => void }[] = [];
  const warnings: string[] = [];
  const strapi = {
    log: { warn: (message: string) => warnings.push(message) },
    plugin: () => ({
      service: () => {
        let codes!: Promise<string[]>;
        return {
          find: () => {
            codes = new Promise<string[]>((resolve, reject) => lookups.push({ resolve, reject }));
            return codes.then((list) => list.map((code) => ({ code })));
          },
          getDefaultLocale: async () => (await codes)[0] ?? null,
        };
      },
    }),
  };
  return { strapi, lookups, warnings };
};

const settle = async () => {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
};

test('the first lookup is waited for; within the TTL no other is made', async () => {
  let now = 0;
  const { strapi, lookups } = fakeI18n();
  const locales = createLocales({ strapi } as never, () => now);
  const first = locales.get();
  const second = locales.get();
  expect(lookups).toHaveLength(1);
  lookups[0]!.resolve(['fr', 'en']);
  expect(await first).toEqual({ codes: ['en', 'fr'], defaultLocale: 'fr' });
  expect(await second).toEqual(await first);
  now += LOCALES_TTL_MS;
  await locales.get();
  expect(lookups).toHaveLength(1);
});

test('past the TTL the kept locales answer at once while one lookup refreshes them', async () => {
  let now = 0;
  const { strapi, lookups } = fakeI18n();
  const locales = createLocales({ strapi } as never, () => now);
  const first = locales.get();
  lookups[0]!.resolve(['en']);
  await first;
  now += LOCALES_TTL_MS + 1;
  // The refresh is held (a write holds the connection): the stale answer does not wait for it.
  expect(await locales.get()).toEqual({ codes: ['en'], defaultLocale: 'en' });
  expect(await locales.get()).toEqual({ codes: ['en'], defaultLocale: 'en' });
  expect(lookups).toHaveLength(2);
  lookups[1]!.resolve(['de', 'en']);
  await settle();
  expect(await locales.get()).toEqual({ codes: ['de', 'en'], defaultLocale: 'de' });
  expect(lookups).toHaveLength(2);
});

test('a refresh that fails keeps the locales and is tried again after another TTL', async () => {
  let now = 0;
  const { strapi, lookups, warnings } = fakeI18n();
  const locales = createLocales({ strapi } as never, () => now);
  const first = locales.get();
  lookups[0]!.resolve(['en']);
  await first;
  now += LOCALES_TTL_MS + 1;
  await locales.get();
  lookups[1]!.reject(new Error('database unavailable'));
  await settle();
  expect(warnings).toEqual(['[public-api] could not refresh the locales: database unavailable']);
  expect(await locales.get()).toEqual({ codes: ['en'], defaultLocale: 'en' });
  expect(lookups).toHaveLength(2);
  now += LOCALES_TTL_MS + 1;
  await locales.get();
  expect(lookups).toHaveLength(3);
});

test('a first lookup that fails is not kept; after forget, a refresh begun before does not land', async () => {
  let now = 0;
  const { strapi, lookups } = fakeI18n();
  const locales = createLocales({ strapi } as never, () => now);
  const failed = locales.get();
  lookups[0]!.reject(new Error('no table yet'));
  await expect(failed).rejects.toThrow('no table yet');
  await settle();
  const second = locales.get();
  expect(lookups).toHaveLength(2);
  lookups[1]!.resolve(['en']);
  await second;
  now += LOCALES_TTL_MS + 1;
  await locales.get();
  expect(lookups).toHaveLength(3);
  locales.forget();
  const fresh = locales.get();
  expect(lookups).toHaveLength(4);
  // The refresh from before forget lands late: it must not replace what the lookup after it finds.
  lookups[3]!.resolve(['en', 'nl']);
  lookups[2]!.resolve(['old']);
  expect(await fresh).toEqual({ codes: ['en', 'nl'], defaultLocale: 'en' });
  await settle();
  expect(await locales.get()).toEqual({ codes: ['en', 'nl'], defaultLocale: 'en' });
});
