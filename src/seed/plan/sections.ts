/**
 * The components of the demo content: a page's dynamic zone of sections and the SEO component of pages
 * and events, as plan data. A dynamic zone entry names its component in `__component`, as the document
 * service takes it; media and relations inside are plan references like anywhere else.
 */
import type { Blocks } from '../content/blocks';
import { documentRef, fileRef, UID, type SeedData } from './types';

/** Component uids: they become the public `type` of a dynamic zone entry (contract section 15). */
export const COMPONENT = {
  link: 'shared.link',
  seo: 'shared.seo',
  hero: 'sections.hero',
  richText: 'sections.rich-text',
  imageGallery: 'sections.image-gallery',
  callToAction: 'sections.call-to-action',
  relatedEvents: 'sections.related-events',
} as const;

export type SectionComponent = Exclude<(typeof COMPONENT)[keyof typeof COMPONENT], 'shared.link' | 'shared.seo'>;

/** One entry of a page's `sections`. */
export type PlannedSection = SeedData & { __component: SectionComponent };

export type LinkData = { label: string; url: string; openInNewTab?: boolean };

const linkOf = ({ label, url, openInNewTab }: LinkData): SeedData => ({ label, url, openInNewTab: openInNewTab ?? false });

export const hero = (heading: string, subheading: string, image: string, cta?: LinkData): PlannedSection => ({
  __component: COMPONENT.hero,
  heading,
  subheading,
  image: fileRef(image),
  cta: cta ? linkOf(cta) : null,
});

export const richText = (body: Blocks): PlannedSection => ({ __component: COMPONENT.richText, body });

export const imageGallery = (images: readonly string[], caption: string): PlannedSection => ({
  __component: COMPONENT.imageGallery,
  images: images.map(fileRef),
  caption,
});

export const callToAction = (text: string, link: LinkData, style: 'primary' | 'secondary' | 'subtle'): PlannedSection => ({
  __component: COMPONENT.callToAction,
  text,
  link: linkOf(link),
  style,
});

/** Events by their plan key (the English slug); the plan lists only published ones. */
export const relatedEvents = (heading: string, eventKeys: readonly string[]): PlannedSection => ({
  __component: COMPONENT.relatedEvents,
  heading,
  events: eventKeys.map((key) => documentRef(UID.event, key)),
});

export type SeoData = { metaTitle: string; metaDescription: string; ogImage: string | null; noIndex?: boolean; keywords?: string };

export const seo = ({ metaTitle, metaDescription, ogImage, noIndex, keywords }: SeoData): SeedData => ({
  metaTitle,
  metaDescription,
  ogImage: ogImage ? fileRef(ogImage) : null,
  noIndex: noIndex ?? false,
  keywords: keywords ?? null,
});
