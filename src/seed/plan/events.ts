/**
 * Events: about two hundred, in English and German, at the seeded venues, some during festivals.
 */
import { bold, bulletList, code, heading, italic, link, numberedList, paragraph, quote, type Blocks } from '../content/blocks';
import { instantAfterEpoch } from '../epoch';
import { createRandom, seedOf, type Random } from '../random';
import { createSlugRegistry } from '../slugs';
import type { PlannedBuilding } from './buildings';
import { eventTitle, type Bilingual, type Category } from './event-titles';
import { FESTIVALS, festivalSlug, type FestivalSeed } from './festivals';
import { IMAGE_KEYS } from './files';
import { sortValueAt } from './sort';
import { seo } from './sections';
import { documentRef, fileRef, UID, type Locale, type PlannedDocument, type SeedData } from './types';

export const EVENT_COUNT = 200;

export type PlannedEvent = PlannedDocument & {
  title: Bilingual;
  slugs: Bilingual;
  price: number;
  published: boolean;
  category: Category;
};

const CATEGORY_WEIGHTS: Array<[Category, number]> = [
  ['concert', 30],
  ['exhibition', 15],
  ['talk', 15],
  ['workshop', 15],
  ['theatre', 15],
  ['film', 10],
];

const pickCategory = (random: Random): Category => {
  let roll = random.int(1, 100);
  for (const [category, weight] of CATEGORY_WEIGHTS) {
    roll -= weight;
    if (roll <= 0) return category;
  }
  return 'concert';
};

/** Start hour (UTC), duration in minutes and price range in euros, by category. */
const SHAPE: Record<Category, { hours: number[]; minutes: [number, number]; price: [number, number] }> = {
  concert: { hours: [18, 19], minutes: [120, 180], price: [12, 48] },
  exhibition: { hours: [9, 10], minutes: [60 * 24 * 30, 60 * 24 * 90], price: [6, 14] },
  talk: { hours: [17, 18], minutes: [75, 105], price: [0, 10] },
  workshop: { hours: [9, 13, 14], minutes: [120, 240], price: [25, 80] },
  theatre: { hours: [18, 19], minutes: [120, 170], price: [18, 60] },
  film: { hours: [19, 20], minutes: [100, 140], price: [7, 11] },
};

const TAGS: Record<Category, string[]> = {
  concert: ['live-music', 'classical', 'jazz', 'late-night', 'seated'],
  exhibition: ['art', 'photography', 'guided', 'family-friendly'],
  talk: ['english', 'german', 'discussion', 'books'],
  workshop: ['hands-on', 'family-friendly', 'materials-included', 'kids'],
  theatre: ['premiere', 'english-surtitles', 'drama'],
  film: ['outdoor', 'original-version', 'subtitled', 'classic'],
};

const SUMMARY: Record<Category, Bilingual> = {
  concert: {
    en: 'Live music at {venue}. Doors open thirty minutes before the concert; the bar stays open afterwards.',
    de: 'Livemusik, Spielort: {venue}. Einlass dreißig Minuten vor Beginn; die Bar bleibt danach geöffnet.',
  },
  exhibition: {
    en: 'An exhibition at {venue}, with guided tours every Sunday and a catalogue in the shop.',
    de: 'Eine Ausstellung mit Führungen an jedem Sonntag und einem Katalog im Shop. Ort: {venue}.',
  },
  talk: {
    en: 'A talk with time for questions from the audience, followed by a book signing at {venue}.',
    de: 'Ein Gespräch mit Zeit für Fragen aus dem Publikum, danach Signierstunde. Ort: {venue}.',
  },
  workshop: {
    en: 'A hands-on workshop at {venue}. All materials are included; no experience needed.',
    de: 'Ein Praxis-Workshop, Ort: {venue}. Alle Materialien sind inklusive, Vorkenntnisse sind nicht nötig.',
  },
  theatre: {
    en: 'A new production at {venue}, performed in German with English surtitles.',
    de: 'Eine neue Inszenierung auf Deutsch mit englischen Übertiteln. Spielort: {venue}.',
  },
  film: {
    en: 'A screening at {venue}, introduced by our film programmer, in the original version.',
    de: 'Eine Vorführung in der Originalfassung, eingeführt von unserem Filmkurator. Ort: {venue}.',
  },
};

const WORDS = {
  en: {
    about: 'About the event',
    programme: 'Programme',
    goodToKnow: 'Good to know',
    doors: (time: string) => `Doors open at ${time}`,
    start: 'Start of the programme',
    interval: 'Interval with drinks in the foyer',
    end: 'Meet the artists after the show',
    accessible: 'Step-free access and reserved wheelchair spaces',
    notAccessible: 'The venue has stairs; call us for help with access',
    free: 'Free entry, no ticket needed',
    priced: (price: number) => `Tickets from €${price.toFixed(2)}`,
    booking: 'Groups of ten or more book with the code',
    tickets: 'Book your tickets',
    online: 'online',
    intro: (title: string, venue: string) => [
      bold(title),
      ' comes to ',
      italic(venue),
      ' for one evening only. Expect an intimate setting and time to talk afterwards.',
    ],
    press: '“A rare evening that stays with you long after the last note.” – Hamburger Abendblatt',
  },
  de: {
    about: 'Über die Veranstaltung',
    programme: 'Programm',
    goodToKnow: 'Gut zu wissen',
    doors: (time: string) => `Einlass um ${time} Uhr`,
    start: 'Beginn des Programms',
    interval: 'Pause mit Getränken im Foyer',
    end: 'Gespräch mit den Künstlerinnen und Künstlern',
    accessible: 'Stufenloser Zugang und reservierte Rollstuhlplätze',
    notAccessible: 'Der Saal ist nur über Treppen erreichbar; rufen Sie uns an',
    free: 'Eintritt frei, kein Ticket nötig',
    priced: (price: number) => `Tickets ab ${price.toFixed(2).replace('.', ',')} €`,
    booking: 'Gruppen ab zehn Personen buchen mit dem Code',
    tickets: 'Tickets buchen Sie',
    online: 'online',
    intro: (title: string, venue: string) => [
      bold(title),
      ': ein Abend an einem besonderen Ort, ',
      italic(venue),
      '. Freuen Sie sich auf eine intime Atmosphäre und Zeit für Gespräche.',
    ],
    press: '„Ein seltener Abend, der lange nachklingt.“ – Hamburger Abendblatt',
  },
} as const;

const clock = (iso: string) => iso.slice(11, 16);

const eventBody = (
  locale: Locale,
  event: { title: string; slug: string; venue: string; startsAt: string; price: number; accessible: boolean },
  random: Random,
): Blocks => {
  const words = WORDS[locale];
  const blocks: Blocks = [heading(2, words.about), paragraph(...words.intro(event.title, event.venue))];
  if (random.chance(0.6)) {
    const doors = new Date(Date.parse(event.startsAt) - 30 * 60 * 1000).toISOString();
    blocks.push(heading(3, words.programme), numberedList(words.doors(clock(doors)), words.start, words.interval, words.end));
  }
  blocks.push(
    heading(3, words.goodToKnow),
    bulletList(event.accessible ? words.accessible : words.notAccessible, event.price === 0 ? words.free : words.priced(event.price), [
      words.booking,
      ' ',
      code(`GRP-${event.slug.slice(0, 6).toUpperCase()}`),
    ]),
  );
  if (random.chance(0.35)) blocks.push(quote(words.press));
  if (event.price > 0) blocks.push(paragraph(`${words.tickets} `, link(`https://tickets.example.org/${event.slug}`, words.online), '.'));
  return blocks;
};

const roundedPrice = (random: Random, [min, max]: [number, number]) => random.int(min * 2, max * 2) / 2;

export const planEvents = (buildings: readonly PlannedBuilding[]): PlannedEvent[] => {
  const random = createRandom(seedOf('events'));
  const slugFor = createSlugRegistry();
  const venues = buildings.filter((building) => building.publish);
  return Array.from({ length: EVENT_COUNT }, (_, index): PlannedEvent => {
    const category = pickCategory(random);
    const title = eventTitle(category, random);
    const shape = SHAPE[category];
    const festival: FestivalSeed | null = category !== 'exhibition' && random.chance(0.3) ? random.pick(FESTIVALS) : null;
    const day = festival ? festival.firstDay + random.int(0, festival.days - 1) : random.int(-45, 320);
    const startsAt = instantAfterEpoch(day, random.pick(shape.hours), random.pick([0, 0, 30]));
    const endsAt = random.chance(0.1) ? null : new Date(Date.parse(startsAt) + random.int(...shape.minutes) * 60 * 1000).toISOString();
    const price = random.chance(0.15) ? 0 : roundedPrice(random, shape.price);
    const venue = random.pick(venues);
    const venueName = String(venue.versions[0].data.name);
    const accessible = venue.versions[0].data.accessible === true;
    const tags = [
      ...new Set([...random.sample(TAGS[category], random.int(1, 3)), ...(price === 0 ? ['free'] : []), ...(festival ? ['festival'] : [])]),
    ];
    const slugs = { en: slugFor(title.en), de: slugFor(title.de) };
    // A few events stay drafts; a few more are published and then edited again.
    const published = index % 33 !== 4;
    const revised = published && index % 29 === 11;
    const relations = {
      venue: documentRef(UID.building, venue.key),
      festival: festival ? documentRef(UID.festival, festivalSlug(festival)) : null,
    };
    const localized = (locale: Locale) => ({
      title: title[locale],
      slug: slugs[locale],
      summary: SUMMARY[category][locale].replace('{venue}', venueName),
      body: eventBody(locale, { title: title[locale], slug: slugs[locale], venue: venueName, startsAt, price, accessible }, random),
      ...relations,
    });
    // In this order: each draws from the stream, and the demo content depends on the order of the draws.
    const englishText = localized('en');
    const soldOut = random.chance(0.08);
    const capacity = random.pick([24, 40, 80, 120, 250, 400, 800, 1200]);
    const cover = random.pick(IMAGE_KEYS);
    const english: SeedData = {
      ...englishText,
      sort: sortValueAt(index),
      startsAt,
      endsAt,
      category,
      tags,
      price,
      soldOut,
      capacity,
      cover: fileRef(cover),
    };
    const german: SeedData = localized('de');
    // Every fourth published event has its SEO filled in, in each language, with its cover as the preview image.
    const withSeo = (data: SeedData, locale: Locale): SeedData =>
      published && index % 4 === 0
        ? {
            ...data,
            seo: seo({
              metaTitle: title[locale].slice(0, 70),
              metaDescription: String(data.summary).slice(0, 160),
              ogImage: cover,
              keywords: tags.join(', '),
            }),
          }
        : data;
    return {
      contentType: UID.event,
      key: slugs.en,
      identity: { field: 'slug', value: slugs.en },
      title,
      slugs,
      price,
      published,
      category,
      versions: [
        { locale: 'en', data: withSeo(english, 'en') },
        { locale: 'de', data: withSeo(german, 'de') },
      ],
      publish: published,
      draftChanges: revised
        ? [
            { locale: 'en', data: { title: `${title.en} (New Date)` } },
            { locale: 'de', data: { title: `${title.de} (Neuer Termin)` } },
          ]
        : [],
    };
  });
};
