/**
 * Festivals: six, spread over the seed year, each grouping some of the events.
 */
import { bold, bulletList, heading, link, paragraph, quote } from '../content/blocks';
import { dayAfterEpoch } from '../epoch';
import { createRandom, seedOf } from '../random';
import { slugify } from '../slugs';
import { IMAGE_KEYS } from './files';
import { sortValueAt } from './sort';
import { fileRef, UID, type PlannedDocument } from './types';

export type FestivalSeed = { name: string; firstDay: number; days: number; theme: string; highlights: string[] };

/** Days are counted from the seed epoch (Monday 6 January 2025). */
export const FESTIVALS: FestivalSeed[] = [
  {
    name: 'Winter Lantern Nights',
    firstDay: 10,
    days: 4,
    theme: 'light installations in courtyards and along the canals',
    highlights: ['Lantern parade on Saturday', 'Warm drinks by the fire', 'Shadow theatre for children'],
  },
  {
    name: 'Long Night of Museums',
    firstDay: 110,
    days: 1,
    theme: 'forty museums open until two in the morning',
    highlights: ['Shuttle buses every ten minutes', 'Curator talks on the hour', 'One ticket for every museum'],
  },
  {
    name: 'Summer Sound Days',
    firstDay: 170,
    days: 8,
    theme: 'free open-air concerts in parks and squares',
    highlights: ['Over sixty concerts', 'Family afternoons', 'Late-night sets on the river'],
  },
  {
    name: 'Harbour Lights Festival',
    firstDay: 215,
    days: 5,
    theme: 'music, food and fireworks along the waterfront',
    highlights: ['Fireworks on the last night', 'Tall ships open to visitors', 'Street food from twenty countries'],
  },
  {
    name: 'Documentary Week',
    firstDay: 280,
    days: 7,
    theme: 'documentary films with their makers in conversation',
    highlights: ['Twenty-four premieres', 'Q&A after every screening', 'Audience award'],
  },
  {
    name: 'Design and Craft Days',
    firstDay: 300,
    days: 3,
    theme: 'studios, workshops and makers opening their doors',
    highlights: ['Open studios across the city', 'Hands-on workshops', 'Design market'],
  },
];

export const festivalSlug = (festival: FestivalSeed): string => slugify(festival.name);

export const planFestivals = (): PlannedDocument[] => {
  const random = createRandom(seedOf('festivals'));
  return FESTIVALS.map((festival, index) => {
    const slug = festivalSlug(festival);
    return {
      contentType: UID.festival,
      key: slug,
      identity: { field: 'slug', value: slug },
      versions: [
        {
          locale: null,
          data: {
            name: festival.name,
            slug,
            sort: sortValueAt(index),
            startsOn: dayAfterEpoch(festival.firstDay),
            endsOn: dayAfterEpoch(festival.firstDay + festival.days - 1),
            description: [
              paragraph(bold(festival.name), ` brings ${festival.theme}.`),
              heading(3, 'Highlights'),
              bulletList(...festival.highlights),
              quote(
                random.pick([
                  '“The best week of the year in this city.”',
                  '“Generous, surprising and completely unpretentious.”',
                  '“A festival that belongs to everyone.”',
                ]),
              ),
              paragraph('Full programme and tickets at ', link(`https://${slug}.example.org`, `${slug}.example.org`), '.'),
            ],
            website: `https://${slug}.example.org`,
            poster: fileRef(random.pick(IMAGE_KEYS)),
          },
        },
      ],
      publish: true,
      draftChanges: [],
    };
  });
};
