/**
 * Buildings: venues and offices in five German cities.
 */
import { bold, bulletList, heading, italic, link, paragraph, type Blocks } from '../content/blocks';
import { createRandom, seedOf, type Random } from '../random';
import { IMAGE_KEYS } from './files';
import { sortValueAt } from './sort';
import { fileRef, UID, type PlannedDocument } from './types';

type BuildingSeed = { name: string; slug: string; street: string; city: string; postcode: string; kind: string };

const CITIES: Record<string, string[]> = {
  Hamburg: ['20457', '22765', '20355', '22767'],
  Berlin: ['10178', '10997', '10435', '12043'],
  Leipzig: ['04109', '04177', '04275'],
  Köln: ['50667', '50823', '50679'],
  München: ['80331', '80469', '81667'],
};

const BUILDINGS: Array<Omit<BuildingSeed, 'postcode' | 'slug'>> = [
  { name: 'Old Mill Arts Centre', street: 'Mühlenkamp', city: 'Hamburg', kind: 'arts centre' },
  { name: 'Harbour Hall', street: 'Am Sandtorkai', city: 'Hamburg', kind: 'concert hall' },
  { name: 'Kesselhaus', street: 'Knaackstraße', city: 'Berlin', kind: 'former boiler house' },
  { name: 'Glass Pavilion', street: 'Lindenallee', city: 'Leipzig', kind: 'exhibition pavilion' },
  { name: 'Central Library', street: 'Hühnerposten', city: 'Hamburg', kind: 'library' },
  { name: 'Riverside Theatre', street: 'Rheinuferstraße', city: 'Köln', kind: 'theatre' },
  { name: 'Warehouse 7', street: 'Hafenstraße', city: 'Hamburg', kind: 'converted warehouse' },
  { name: 'The Foundry', street: 'Gießereistraße', city: 'Leipzig', kind: 'former iron foundry' },
  { name: 'Observatory Hill', street: 'Sternwartenweg', city: 'München', kind: 'observatory and garden' },
  { name: 'Tram Depot', street: 'Karl-Heine-Straße', city: 'Leipzig', kind: 'former tram depot' },
  { name: 'Botanical Conservatory', street: 'Gartenstraße', city: 'Berlin', kind: 'glasshouse' },
  { name: 'Market Hall', street: 'Marktplatz', city: 'Köln', kind: 'market hall' },
  { name: 'Linden Concert Hall', street: 'Schillerstraße', city: 'München', kind: 'concert hall' },
  { name: 'Canal Studios', street: 'Am Kanal', city: 'Berlin', kind: 'studio building' },
  { name: 'North Pier Cinema', street: 'Nordkaistraße', city: 'Hamburg', kind: 'cinema' },
  { name: 'Civic Forum', street: 'Rathausplatz', city: 'Köln', kind: 'conference centre' },
  { name: 'Printworks', street: 'Druckereiweg', city: 'Berlin', kind: 'former printing works' },
  { name: 'Alte Feuerwache', street: 'Feuerwachstraße', city: 'München', kind: 'former fire station' },
  { name: 'Salt Store', street: 'Salzmagazin', city: 'Hamburg', kind: 'historic salt store' },
  { name: 'Administration Offices', street: 'Bahnhofstraße', city: 'Berlin', kind: 'office building' },
];

const FACILITIES = [
  'Step-free access to all public floors',
  'Cloakroom and lockers',
  'Café with a terrace',
  'Induction loop in the main hall',
  'Bicycle parking in the courtyard',
  'Baby changing room',
  'Quiet room',
  'Public Wi-Fi',
];

const describe = (building: BuildingSeed, random: Random, yearBuilt: number, floors: number): Blocks => [
  heading(2, 'About the building'),
  paragraph(
    `The ${building.name} is a ${building.kind} built in `,
    bold(String(yearBuilt)),
    `. Its ${floors} ${floors === 1 ? 'floor' : 'floors'} host `,
    italic('concerts, exhibitions and workshops'),
    ' throughout the year.',
  ),
  paragraph(
    `Restored between ${yearBuilt + random.int(60, 90)} and ${yearBuilt + random.int(95, 110)}, the building keeps much of its original structure: `,
    'brick walls, steel columns and tall windows that fill the halls with daylight.',
  ),
  heading(3, 'Facilities'),
  bulletList(...random.sample(FACILITIES, random.int(3, 5))),
  paragraph('Plan your visit on ', link(`https://${building.slug}.example.org/visit`, 'our visitor page'), '.'),
];

export type PlannedBuilding = PlannedDocument & { city: string };

export const planBuildings = (): PlannedBuilding[] => {
  const random = createRandom(seedOf('buildings'));
  return BUILDINGS.map((seed, index) => {
    const slug = seed.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const building: BuildingSeed = { ...seed, slug, postcode: random.pick(CITIES[seed.city]) };
    const yearBuilt = random.int(1850, 1995);
    const floors = random.int(1, 7);
    const images = random.sample(IMAGE_KEYS, random.int(1, 3)).map(fileRef);
    // The administration offices were never published: they are not a venue.
    const publish = seed.name !== 'Administration Offices';
    return {
      contentType: UID.building,
      key: slug,
      identity: { field: 'slug', value: slug },
      city: seed.city,
      versions: [
        {
          locale: null,
          data: {
            name: seed.name,
            slug,
            sort: sortValueAt(index),
            address: `${seed.street} ${random.int(1, 120)}, ${building.postcode} ${seed.city}`,
            city: seed.city,
            floors,
            yearBuilt,
            accessible: random.chance(0.75),
            description: describe(building, random, yearBuilt, floors),
            images,
          },
        },
      ],
      publish,
      // The Salt Store's temporary name is saved as a draft and not yet published.
      draftChanges: seed.name === 'Salt Store' ? [{ locale: null, data: { name: 'Salt Store (reopening in spring)' } }] : [],
    };
  });
};
