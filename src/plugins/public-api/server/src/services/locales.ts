/**
 * The locales configured in Strapi's i18n plugin. Kept for a few seconds: locales change rarely and
 * every localized read needs them, so one lookup serves many requests.
 *
 * Past `LOCALES_TTL_MS` the kept locales are still answered while one lookup refreshes them in the
 * background (stale while revalidating); only the very first lookup is waited for. The lookup runs
 * through Strapi's i18n service, on Strapi's connection: on SQLite that is the one connection a write
 * transaction holds, so a read that refreshed the locales waited for the whole write, seconds behind an
 * atomic request of 100 adds (issue 34: the other key's read p95 in `npm run bench:abuse` was made of
 * these). A changed locale is seen once the refresh after it has landed: at most the TTL plus one lookup.
 */
import type { Core } from '@strapi/strapi';

export type Locales = { codes: string[]; defaultLocale: string };

export const LOCALES_TTL_MS = 5_000;

type LocalesService = {
  find: () => Promise<{ code: string }[]>;
  getDefaultLocale: () => Promise<string | null>;
};

type Kept = { at: number; value: Promise<Locales>; loaded: boolean };

export default ({ strapi }: { strapi: Core.Strapi }, clock: () => number = Date.now) => {
  let kept: Kept | null = null;
  let refreshing = false;
  /** Bumped by `forget`: a lookup started before it does not land after it. */
  let generation = 0;

  const load = async (): Promise<Locales> => {
    const service = strapi.plugin('i18n').service('locales') as LocalesService;
    const [rows, defaultLocale] = await Promise.all([service.find(), service.getDefaultLocale()]);
    const codes = rows.map((row) => row.code).sort();
    return { codes, defaultLocale: defaultLocale ?? codes[0] ?? 'en' };
  };

  /** The first lookup, waited for by every request until it lands (and forgotten if it fails). */
  const first = (): Kept => {
    const at = clock();
    const value = load();
    const entry: Kept = { at, value, loaded: false };
    value.then(
      () => {
        entry.loaded = true;
      },
      () => {
        if (kept === entry) kept = null;
      },
    );
    return entry;
  };

  /** A lookup in the background; the kept locales answer meanwhile, and stay when it fails. */
  const refresh = (stale: Kept): void => {
    refreshing = true;
    const started = generation;
    load()
      .then(
        (locales) => {
          if (generation === started && kept === stale) kept = { at: clock(), value: Promise.resolve(locales), loaded: true };
        },
        (error: Error) => {
          // Tried again after another TTL, not on every request meanwhile.
          if (generation === started && kept === stale) stale.at = clock();
          strapi.log.warn(`[public-api] could not refresh the locales: ${error.message}`);
        },
      )
      .finally(() => {
        refreshing = false;
      });
  };

  return {
    get(): Promise<Locales> {
      if (!kept) kept = first();
      else if (kept.loaded && !refreshing && clock() - kept.at > LOCALES_TTL_MS) refresh(kept);
      return kept.value;
    },

    forget() {
      generation += 1;
      kept = null;
    },
  };
};
