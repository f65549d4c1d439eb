/**
 * The components row of `npm run bench` (issue 17): a page of 100 website pages, each with a dynamic zone
 * of 10 sections (two of every demo section kind: hero with image and link, rich text, gallery of three
 * images, call to action with link, related events) and an SEO component, read through /api/v2 against
 * Strapi's own REST API populating the same (`populate[sections][populate]=*`, `populate[seo][populate]=*`).
 *
 * The pages are made once per bench database (idempotent: the titled pages already there are kept).
 */
import type { Core } from '@strapi/strapi';

export const BENCH_PAGE_COUNT = 100;
export const BENCH_PAGE_PREFIX = 'Bench page';
const WEBSITE = 'culture-hub';

const sections = (n: number, images: number[], events: string[]) =>
  [0, 1].flatMap((round) => [
    {
      __component: 'sections.hero',
      heading: `Hero ${n}.${round}`,
      subheading: 'A bench page',
      image: images[0],
      cta: { label: 'More', url: '/more' },
    },
    {
      __component: 'sections.rich-text',
      body: [
        { type: 'heading', level: 2, children: [{ type: 'text', text: `Section ${n}.${round}` }] },
        {
          type: 'paragraph',
          children: [
            { type: 'text', text: 'Some text, ' },
            { type: 'text', text: 'bold', bold: true },
          ],
        },
      ],
    },
    { __component: 'sections.image-gallery', images, caption: 'Gallery' },
    { __component: 'sections.call-to-action', text: 'Act now', link: { label: 'Go', url: '/go' }, style: 'primary' },
    { __component: 'sections.related-events', heading: 'Events', events },
  ]);

/** Makes the bench pages that are missing; returns how many were made. */
export const prepareComponentPages = async (strapi: Core.Strapi): Promise<number> => {
  const website = (await strapi.db.query('plugin::public-api.website').findOne({ where: { slug: WEBSITE } })) as { documentId: string };
  const files = (await strapi.db.query('plugin::upload.file').findMany({ limit: 3, orderBy: { id: 'asc' } })) as { id: number }[];
  const events = (await strapi.documents('api::event.event').findMany({ status: 'published', locale: 'en', limit: 3 } as never)) as {
    documentId: string;
  }[];
  const existing = (await strapi.db
    .query('api::page.page')
    .count({ where: { title: { $startsWith: BENCH_PAGE_PREFIX }, publishedAt: { $notNull: true } } })) as number;
  for (let n = existing; n < BENCH_PAGE_COUNT; n += 1) {
    await strapi.documents('api::page.page').create({
      data: {
        title: `${BENCH_PAGE_PREFIX} ${String(n).padStart(3, '0')}`,
        website: website.documentId,
        sections: sections(
          n,
          files.map((file) => file.id),
          events.map((event) => event.documentId),
        ),
        seo: { metaTitle: `Bench page ${n}`, metaDescription: 'A page of the benchmark', ogImage: files[1]!.id },
      },
      status: 'published',
    } as never);
  }
  return BENCH_PAGE_COUNT - existing;
};

export const componentPageUrls = (serverUrl: string) => {
  const title = encodeURIComponent(BENCH_PAGE_PREFIX);
  return {
    ours: `${serverUrl}/api/v2/cms/${WEBSITE}/pages?limit=100&filter%5Btitle%5D%5BstartsWith%5D=${title}`,
    strapi: `${serverUrl}/api/pages?pagination%5BpageSize%5D=100&filters%5Btitle%5D%5B%24startsWith%5D=${title}&populate%5Bsections%5D%5Bpopulate%5D=*&populate%5Bseo%5D%5Bpopulate%5D=*`,
  };
};
