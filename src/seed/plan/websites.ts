/**
 * Two websites that both publish a `pages` collection and a `settings` singleton; the culture hub also
 * publishes the localized homepage as `home`. Their pages, settings and that homepage.
 */
import {
  bold,
  bulletList,
  codeBlock,
  heading,
  italic,
  link,
  numberedList,
  paragraph,
  quote,
  struck,
  underline,
  type Blocks,
} from '../content/blocks';
import { createRandom, seedOf } from '../random';
import { createSlugRegistry } from '../slugs';
import type { Category } from './event-titles';
import type { PlannedEvent } from './events';
import { IMAGE_KEYS, LOGO_KEYS } from './files';
import { callToAction, hero, imageGallery, relatedEvents, richText, seo, type PlannedSection } from './sections';
import { sortValueAt } from './sort';
import { documentRef, fileRef, UID, type PlannedDocument } from './types';

type Publication = { collection: string; contentType: string; mode: 'collection' | 'singleton' };

const PAGES_PUBLICATION: Publication = { collection: 'pages', contentType: UID.page, mode: 'collection' };
const SETTINGS_PUBLICATION: Publication = { collection: 'settings', contentType: UID.setting, mode: 'singleton' };
const HOME_PUBLICATION: Publication = { collection: 'home', contentType: UID.homepage, mode: 'singleton' };

/** What a page's sections may draw on: images from the demo media, published events of a category. */
type SectionContext = { image: () => string; images: (count: number) => string[]; events: (category: Category, count: number) => string[] };

type PageSeed = {
  title: string;
  summary: string;
  body: () => Blocks;
  showInMenu?: boolean;
  /** The page's dynamic zone, top to bottom. */
  sections: (context: SectionContext) => PlannedSection[];
  keywords?: string;
};

const NEWSLETTER = { label: 'Subscribe', url: '/newsletter' };

const aboutUs = (site: string, mission: string): PageSeed => ({
  title: 'About us',
  summary: `Who is behind ${site}, and why we do it.`,
  body: () => [
    heading(2, 'Who we are'),
    paragraph(bold(site), ` is ${mission}. We are a small editorial team and a large network of volunteers.`),
    heading(3, 'What we believe'),
    bulletList('Culture belongs to everyone', 'Good information is free and accurate', [
      'Local first, but ',
      italic('never'),
      ' provincial',
    ]),
    quote('We want every visitor to find something they did not know they were looking for.'),
  ],
  keywords: `${site}, about, team, volunteers`,
  sections: ({ image, images }) => [
    hero(`About ${site}`, `${site} is ${mission}.`, image(), { label: 'Write to us', url: '/contact' }),
    richText([
      heading(2, 'Our story'),
      paragraph(`${site} started as a printed leaflet handed out at venue doors. Today it reaches thousands of readers every week.`),
    ]),
    imageGallery(images(3), `Behind the scenes at ${site}`),
    callToAction('Never miss a weekend tip: our newsletter arrives every Thursday.', NEWSLETTER, 'primary'),
  ],
});

const contact = (site: string, email: string): PageSeed => ({
  title: 'Contact',
  summary: `How to reach the ${site} team.`,
  body: () => [
    heading(2, 'Write to us'),
    paragraph('E-mail ', link(`mailto:${email}`, email), ' and we answer within two working days.'),
    heading(3, 'Visit the office'),
    paragraph('Bahnhofstraße 12, 10115 Berlin. Open Monday to Thursday, ', bold('10:00–16:00'), '.'),
  ],
  sections: ({ image }) => [
    hero('Get in touch', `The ${site} team reads every message.`, image()),
    richText([
      heading(3, 'Press and partnerships'),
      paragraph('Journalists and partners write to ', link(`mailto:${email}`, email), ' with “Press” in the subject.'),
    ]),
    callToAction('Looking for a job with us?', { label: 'Open positions', url: '/jobs' }, 'secondary'),
  ],
});

const accessibility = (site: string): PageSeed => ({
  title: 'Accessibility',
  summary: `How ${site} works for everyone, and how to tell us when it does not.`,
  body: () => [
    heading(2, 'Our commitment'),
    paragraph(`We aim to meet WCAG 2.2 level AA across ${site}. Every venue page lists step-free access, hearing loops and quiet rooms.`),
    heading(3, 'Report a barrier'),
    numberedList('Tell us the page or venue', 'Describe what stopped you', 'We reply within five working days'),
  ],
  keywords: 'accessibility, step-free access, hearing loop, WCAG',
  sections: () => [
    richText([
      heading(3, 'At the venues'),
      bulletList('Step-free entrances marked on every venue page', 'Hearing loops at the box offices', 'Quiet rooms on request'),
    ]),
    callToAction('Planning a visit and need help?', { label: 'Call the access line', url: 'tel:+49301234567' }, 'subtle'),
  ],
});

const privacy = (site: string): PageSeed => ({
  title: 'Privacy policy',
  summary: 'What we store about you, and for how long.',
  showInMenu: false,
  body: () => [
    heading(2, 'Privacy policy'),
    paragraph(`${site} stores only what it needs: your newsletter address if you subscribe, and `, underline('no tracking cookies'), '.'),
    paragraph('Older versions of this policy mentioned ', struck('third-party analytics'), '; we removed them in 2024.'),
  ],
  sections: () => [
    richText([heading(3, 'Your rights'), paragraph('Ask us at any time what we store about you, and we delete it within thirty days.')]),
  ],
});

const legalNotice = (site: string): PageSeed => ({
  title: 'Legal notice',
  summary: 'Publisher information required by German law (Impressum).',
  showInMenu: false,
  body: () => [
    heading(2, 'Legal notice'),
    paragraph(`${site} is published by Kulturverein Nord e.V., Bahnhofstraße 12, 10115 Berlin. Register of associations: VR 12345 B.`),
  ],
  sections: () => [richText([heading(3, 'Responsible for the content'), paragraph('The editorial board of Kulturverein Nord e.V.')])],
});

const WEBSITES: Array<{
  name: string;
  slug: string;
  publications: Publication[];
  settings: { tagline: string; email: string; color: string; logo: string };
  pages: PageSeed[];
}> = [
  {
    name: 'City Guide',
    slug: 'city-guide',
    publications: [PAGES_PUBLICATION, SETTINGS_PUBLICATION],
    settings: {
      tagline: 'Everything worth doing in town this week',
      email: 'hello@city-guide.example.org',
      color: '#0f766e',
      logo: LOGO_KEYS[0],
    },
    pages: [
      aboutUs('City Guide', 'an independent guide to the city’s culture, food and neighbourhoods'),
      contact('City Guide', 'hello@city-guide.example.org'),
      {
        title: 'Getting around',
        summary: 'Trams, bikes and ferries: the fastest ways between venues.',
        body: () => [
          heading(2, 'By public transport'),
          paragraph('One ticket covers trams, buses and the harbour ferries. Buy it in the app before you board.'),
          heading(3, 'Ferry line 62'),
          numberedList('Landungsbrücken', 'Altona (Fischmarkt)', 'Dockland', 'Finkenwerder'),
          paragraph('Timetables as data: ', link('https://transit.example.org/gtfs', 'GTFS feed'), '. Example query:'),
          codeBlock('GET /departures?stop=landungsbruecken&line=62', 'http'),
        ],
        keywords: 'tram, ferry, bike, public transport',
        sections: ({ image }) => [
          hero('Getting around', 'One ticket, three ways to travel.', image(), {
            label: 'Timetables',
            url: 'https://transit.example.org',
            openInNewTab: true,
          }),
          richText([heading(3, 'By bike'), paragraph('Rental bikes stand outside every venue; the first thirty minutes are free.')]),
          callToAction(
            'Going out late? Night buses run every twenty minutes.',
            { label: 'Night network map', url: '/getting-around#night' },
            'subtle',
          ),
        ],
      },
      {
        title: 'Neighbourhoods',
        summary: 'Six districts, six moods: where to go for what.',
        body: () => [
          heading(2, 'Neighbourhoods'),
          bulletList(
            [bold('Harbour'), ': warehouses, ferries and fish rolls'],
            [bold('Old Town'), ': churches, markets and the town hall'],
            [bold('Canal district'), ': studios, galleries, late bars'],
          ),
        ],
        sections: ({ image, images, events }) => [
          hero('Neighbourhoods', 'Six districts, six moods.', image()),
          imageGallery(images(4), 'Harbour, Old Town and the canals'),
          relatedEvents('Exhibitions around town', events('exhibition', 3)),
        ],
      },
      {
        title: 'Where to eat',
        summary: 'Our editors’ favourite places near the venues.',
        body: () => [
          heading(2, 'Where to eat'),
          paragraph('From fish rolls on the pier to ', italic('Franzbrötchen'), ' in the Old Town: a list that changes with the seasons.'),
        ],
        sections: ({ image }) => [
          hero('Where to eat', 'Near the venues, open late.', image()),
          richText([
            heading(3, 'Before the show'),
            paragraph('Most kitchens near the concert halls serve a short pre-theatre menu from 17:30.'),
          ]),
        ],
      },
      accessibility('City Guide'),
      privacy('City Guide'),
      legalNotice('City Guide'),
    ],
  },
  {
    name: 'Culture Hub',
    slug: 'culture-hub',
    publications: [PAGES_PUBLICATION, SETTINGS_PUBLICATION, HOME_PUBLICATION],
    settings: {
      tagline: 'Concerts, exhibitions and festivals in one place',
      email: 'info@culture-hub.example.org',
      color: '#6b2d5c',
      logo: LOGO_KEYS[1],
    },
    pages: [
      aboutUs('Culture Hub', 'the programme platform of twenty venues and six festivals'),
      contact('Culture Hub', 'info@culture-hub.example.org'),
      {
        title: 'Membership',
        summary: 'Free entry, early booking and a yearbook: become a member.',
        body: () => [
          heading(2, 'Become a member'),
          paragraph('Members get ', bold('free entry'), ' to every exhibition and ', bold('48 hours'), ' of early booking for festivals.'),
          numberedList('Choose a membership', 'Pay online or at any box office', 'Show your card at the door'),
        ],
        keywords: 'membership, free entry, early booking',
        sections: ({ image, events }) => [
          hero('Become a member', 'Free entry, early booking and a yearbook.', image(), { label: 'Join now', url: '/membership/join' }),
          richText([heading(3, 'Three kinds of membership'), bulletList('Single', 'Couple', 'Family, with children up to 18')]),
          relatedEvents('Members book these first', events('concert', 4)),
          callToAction('Already a member? Renew for another year.', { label: 'Renew', url: '/membership/renew' }, 'secondary'),
        ],
      },
      {
        title: 'Education',
        summary: 'Workshops, school visits and guided tours for all ages.',
        body: () => [
          heading(2, 'Learning with us'),
          paragraph('Schools book free guided tours for classes of up to thirty pupils.'),
          bulletList('Primary schools', 'Secondary schools', 'Adult education'),
        ],
        sections: ({ image, images, events }) => [
          hero('Learning with us', 'Workshops, school visits and guided tours.', image(), {
            label: 'Book a class visit',
            url: '/education/book',
          }),
          imageGallery(images(3), 'Pupils in our studios'),
          relatedEvents('Upcoming workshops', events('workshop', 4)),
        ],
      },
      {
        title: 'Press',
        summary: 'Press releases, images and accreditation.',
        body: () => [heading(2, 'Press'), paragraph('Accreditation for festivals opens four weeks before the first day.')],
        sections: ({ image, images, events }) => [
          hero('Press', 'Releases, images and accreditation.', image()),
          imageGallery(images(4), 'Press images, free to use with credit'),
          relatedEvents('Talks open to the press', events('talk', 3)),
        ],
      },
      accessibility('Culture Hub'),
      privacy('Culture Hub'),
      legalNotice('Culture Hub'),
    ],
  },
];

export const WEBSITE_SLUGS = WEBSITES.map((website) => website.slug);

export const planWebsites = (): PlannedDocument[] =>
  WEBSITES.map((website) => ({
    contentType: UID.website,
    key: website.slug,
    identity: { field: 'slug', value: website.slug },
    versions: [{ locale: null, data: { name: website.name, slug: website.slug, publications: website.publications } }],
    // Websites have no draft and publish: they are live when saved.
    publish: false,
    draftChanges: [],
  }));

/**
 * Pages of both websites. A slug is unique per website (contract section 1), so both sites have
 * `about-us`; a page's plan key is `<website>/<slug>`. Related pages link to earlier pages of the same
 * site, and one culture hub page links to a City Guide page, which the API must never serve through the
 * culture hub.
 */
export const planPages = (events: readonly PlannedEvent[]): PlannedDocument[] => {
  const random = createRandom(seedOf('pages'));
  // Sections draw from their own stream: the pages' other values stay what they were before sections.
  const sectionRandom = createRandom(seedOf('page-sections'));
  const context: SectionContext = {
    image: () => sectionRandom.pick(IMAGE_KEYS),
    images: (count) => sectionRandom.sample(IMAGE_KEYS, count),
    // Published events only: a published page's relation to a draft-only event would be empty.
    events: (category, count) =>
      events
        .filter((event) => event.published && event.category === category)
        .slice(0, count)
        .map((event) => event.key),
  };
  // Before slugs were per website, the second site's pages took the next free slug (`about-us-1`):
  // a database seeded then is found by those, and its pages get their natural slugs back.
  const formerSlugFor = createSlugRegistry();
  const earlier: Array<{ slug: string; website: string }> = [];
  return WEBSITES.flatMap((website) => {
    const slugFor = createSlugRegistry();
    return website.pages.map((page, index): PlannedDocument => {
      const slug = slugFor(page.title);
      const formerSlug = formerSlugFor(page.title);
      const sameSite = earlier.filter((other) => other.website === website.slug).map((other) => other.slug);
      const related = random.sample(sameSite, random.int(0, 2)).map((target) => pageKey(website.slug, target));
      if (website.slug === 'culture-hub' && page.title === 'Contact') related.push(pageKey('city-guide', 'getting-around'));
      earlier.push({ slug, website: website.slug });
      const heroImage = page.showInMenu === false ? null : fileRef(random.pick(IMAGE_KEYS));
      return {
        contentType: UID.page,
        key: pageKey(website.slug, slug),
        identity: { field: 'slug', value: slug, website: website.slug, ...(formerSlug !== slug ? { formerly: formerSlug } : {}) },
        versions: [
          {
            locale: null,
            data: {
              title: page.title,
              slug,
              sort: sortValueAt(index),
              summary: page.summary,
              body: page.body(),
              hero: heroImage,
              showInMenu: page.showInMenu ?? true,
              website: documentRef(UID.website, website.slug),
              relatedPages: related.map((target) => documentRef(UID.page, target)),
              sections: page.sections(context),
              seo: seo({
                metaTitle: `${page.title} | ${website.name}`,
                metaDescription: page.summary,
                ogImage: heroImage?.key ?? null,
                // Pages kept out of the menu (privacy, legal notice) are kept out of search results too.
                noIndex: page.showInMenu === false,
                keywords: page.keywords,
              }),
            },
          },
        ],
        // Each site has a page still in draft (its press page / where-to-eat list is being written)...
        publish: page.title !== 'Press' && page.title !== 'Where to eat',
        // ...and its contact page has an unpublished edit.
        draftChanges:
          page.title === 'Contact' ? [{ locale: null, data: { summary: `${page.summary} New opening hours from March.` } }] : [],
      };
    });
  });
};

/** A page's plan key: its slug is unique within its website only. */
export const pageKey = (website: string, slug: string): string => `${website}/${slug}`;

/** One settings record per website; a rerun finds it by its site name. */
export const planSettings = (): PlannedDocument[] =>
  WEBSITES.map((website) => ({
    contentType: UID.setting,
    key: website.slug,
    identity: { field: 'siteName', value: website.name },
    versions: [
      {
        locale: null,
        data: {
          siteName: website.name,
          tagline: website.settings.tagline,
          contactEmail: website.settings.email,
          primaryColor: website.settings.color,
          logo: fileRef(website.settings.logo),
          website: documentRef(UID.website, website.slug),
        },
      },
    ],
    publish: true,
    draftChanges: [],
  }));

/** The localized homepage, featuring six published events. */
export const planHomepage = (events: readonly PlannedEvent[]): PlannedDocument => {
  const featured = events
    .filter((event) => event.published)
    .slice(0, 6)
    .map((event) => documentRef(UID.event, event.key));
  const intro = {
    en: [
      paragraph('Twenty venues, six festivals and ', bold('hundreds of events'), ' a year, in one place.'),
      bulletList('Concerts and theatre', 'Exhibitions and guided tours', 'Workshops for all ages'),
    ],
    de: [
      paragraph('Zwanzig Spielstätten, sechs Festivals und ', bold('Hunderte Veranstaltungen'), ' im Jahr, an einem Ort.'),
      bulletList('Konzerte und Theater', 'Ausstellungen und Führungen', 'Workshops für alle Altersgruppen'),
    ],
  };
  return {
    contentType: UID.homepage,
    key: 'homepage',
    identity: null,
    versions: [
      {
        locale: 'en',
        data: { headline: 'Culture in the city, every day', intro: intro.en, hero: fileRef(IMAGE_KEYS[0]), featuredEvents: featured },
      },
      { locale: 'de', data: { headline: 'Kultur in der Stadt, jeden Tag', intro: intro.de, featuredEvents: featured } },
    ],
    publish: true,
    // The summer headline is ready in English but not yet published.
    draftChanges: [{ locale: 'en', data: { headline: 'Summer in the city: open-air season starts now' } }],
  };
};
