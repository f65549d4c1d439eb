/**
 * Who writes what where: the resource as the key sees it, and the locale the write is in.
 */
import type { Projection } from '../../grants/projection';
import type { ApiKey } from '../../keys/types';
import type { Resource } from '../../registry/types';

export type WriteTarget = {
  key: ApiKey;
  projection: Projection;
  /** The locale of the write for localized resources; null for the others. */
  locale: string | null;
  /**
   * The locale of the localized records references name: the write's locale, also for resources that
   * are not localized (the `locale` parameter, else the default), as reads show their references.
   */
  language: string;
};

/** The locale of a reference's target: the write's language (Strapi's rule when both sides are localized). */
export const targetLocale = (target: WriteTarget, resource: Resource): string | null => (resource.localized ? target.language : null);

/** The `locale` parameter of Strapi's document service for this write: only for localized resources. */
export const localeParam = (target: WriteTarget) =>
  target.projection.resource.localized && target.locale ? { locale: target.locale } : {};
