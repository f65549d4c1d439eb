/**
 * Products: sixty shop items in English and German: merchandise, publications, devices with a PDF
 * manual, and tickets linked to events.
 */
import { createRandom, seedOf, type Random } from '../random';
import { createSlugRegistry } from '../slugs';
import type { PlannedEvent } from './events';
import type { Bilingual } from './event-titles';
import { IMAGE_KEYS, MANUAL_KEY } from './files';
import { sortValueAt } from './sort';
import { documentRef, fileRef, UID, type Locale, type PlannedDocument } from './types';

type Line = 'merchandise' | 'publication' | 'device' | 'ticket';

type ProductSeed = { line: Line; name: Bilingual; price: number; event?: PlannedEvent };

const MERCHANDISE: Array<[Bilingual, number]> = [
  [{ en: 'Festival Tote Bag, natural', de: 'Festival-Stofftasche, natur' }, 12],
  [{ en: 'Festival Tote Bag, navy', de: 'Festival-Stofftasche, marineblau' }, 12],
  [{ en: 'Organic T-Shirt, black', de: 'Bio-T-Shirt, schwarz' }, 24],
  [{ en: 'Organic T-Shirt, white', de: 'Bio-T-Shirt, weiß' }, 24],
  [{ en: 'Organic T-Shirt, ochre', de: 'Bio-T-Shirt, ocker' }, 24],
  [{ en: 'Hoodie, heather grey', de: 'Kapuzenpullover, grau meliert' }, 59],
  [{ en: 'Hoodie, navy', de: 'Kapuzenpullover, marineblau' }, 59],
  [{ en: 'Enamel Pin Set', de: 'Emaille-Anstecker-Set' }, 9.5],
  [{ en: 'Espresso Cup', de: 'Espressotasse' }, 8],
  [{ en: 'Coffee Mug, harbour blue', de: 'Kaffeebecher, hafenblau' }, 14],
  [{ en: 'Coffee Mug, brick red', de: 'Kaffeebecher, ziegelrot' }, 14],
  [{ en: 'Poster A2 “Harbour Lights”', de: 'Plakat A2 „Harbour Lights“' }, 18],
  [{ en: 'Postcard Set (12 cards)', de: 'Postkartenset (12 Stück)' }, 11],
  [{ en: 'Dotted Notebook A5', de: 'Gepunktetes Notizbuch A5' }, 13.5],
  [{ en: 'Dotted Notebook A6', de: 'Gepunktetes Notizbuch A6' }, 9],
  [{ en: 'Folding Umbrella', de: 'Taschenschirm' }, 29],
  [{ en: 'Baseball Cap', de: 'Baseballkappe' }, 22],
  [{ en: 'Museum Socks', de: 'Museumssocken' }, 12.5],
  [{ en: 'Steel Water Bottle', de: 'Edelstahl-Trinkflasche' }, 26],
  [{ en: 'Sticker Sheet', de: 'Stickerbogen' }, 3.5],
  [{ en: 'Wool Scarf', de: 'Wollschal' }, 45],
  [{ en: 'Pencil Set', de: 'Bleistiftset' }, 7.5],
  [{ en: 'Jigsaw Puzzle (1000 pieces)', de: 'Puzzle (1000 Teile)' }, 27],
  [{ en: 'Canvas Backpack', de: 'Canvas-Rucksack' }, 69],
  [{ en: 'Lanyard', de: 'Schlüsselband' }, 5],
];

const PUBLICATIONS: Array<[Bilingual, number]> = [
  [{ en: 'Catalogue: Paper Cities', de: 'Katalog: Papierstädte' }, 29],
  [{ en: 'Catalogue: Women of the Bauhaus', de: 'Katalog: Frauen am Bauhaus' }, 34],
  [{ en: 'Catalogue: Textile Futures', de: 'Katalog: Textile Zukünfte' }, 29],
  [{ en: 'Catalogue: Ceramics Now', de: 'Katalog: Keramik heute' }, 25],
  [{ en: 'Catalogue: Maps of Imaginary Places', de: 'Katalog: Karten erfundener Orte' }, 32],
  [{ en: 'City Guide 2025', de: 'Stadtführer 2025' }, 16],
  [{ en: 'Architecture Walks', de: 'Architekturspaziergänge' }, 19.9],
  [{ en: 'Children’s Activity Book', de: 'Mitmachbuch für Kinder' }, 12],
  [{ en: 'Photographs of the Port (photo book)', de: 'Fotografien aus dem Hafen (Bildband)' }, 49],
  [{ en: 'Festival Yearbook 2024', de: 'Festival-Jahrbuch 2024' }, 15],
  [{ en: 'Recipes from the Harbour', de: 'Rezepte aus dem Hafen' }, 24],
  [{ en: 'Vinyl LP: Live at Harbour Hall', de: 'Schallplatte: Live in der Harbour Hall' }, 28],
];

const DEVICES: Array<[Bilingual, number]> = [
  [{ en: 'Audio Guide Headset', de: 'Audioguide-Kopfhörer' }, 39],
  [{ en: 'LED Lantern Kit', de: 'LED-Laternen-Bausatz' }, 19.5],
  [{ en: 'Folding Stool', de: 'Klapphocker' }, 34],
  [{ en: 'Pocket Microscope Kit', de: 'Taschenmikroskop-Set' }, 44],
  [{ en: 'Clip-on Reading Light', de: 'Klemmleselampe' }, 21],
  [{ en: 'Pinhole Camera Kit', de: 'Lochkamera-Bausatz' }, 36],
  [{ en: 'Opera Glasses', de: 'Opernglas' }, 79],
  [{ en: 'Portable Speaker', de: 'Tragbarer Lautsprecher' }, 129],
];

export const TICKET_COUNT = 15;

const PREFIX: Record<Line, string> = { merchandise: 'MRC', publication: 'PUB', device: 'DEV', ticket: 'TKT' };
const TAGS: Record<Line, string[]> = {
  merchandise: ['gift', 'apparel', 'organic', 'bestseller', 'limited-edition'],
  publication: ['book', 'catalogue', 'german', 'english', 'signed'],
  device: ['gift', 'kids', 'outdoor', 'battery-powered'],
  ticket: ['ticket', 'admission'],
};

const DESCRIPTION: Record<Line, Bilingual> = {
  merchandise: {
    en: '{name}, designed in our studio and made in Europe from durable materials. A small piece of the festival to take home.',
    de: '{name}, in unserem Studio gestaltet und in Europa aus langlebigen Materialien gefertigt. Ein kleines Stück Festival für zu Hause.',
  },
  publication: {
    en: '{name}: richly illustrated, with essays by our curators and guest authors. Hardcover, printed on recycled paper.',
    de: '{name}: reich bebildert, mit Essays unserer Kuratorinnen und Gastautoren. Gebunden, gedruckt auf Recyclingpapier.',
  },
  device: {
    en: '{name}, tested by our team at real events. The PDF manual explains set-up, care and safety.',
    de: '{name}, von unserem Team bei echten Veranstaltungen getestet. Die PDF-Anleitung erklärt Aufbau, Pflege und Sicherheit.',
  },
  ticket: {
    en: 'Admission for one person to {name}. Tickets are sent by e-mail and can be shown on your phone.',
    de: 'Eintritt für eine Person: {name}. Tickets werden per E-Mail verschickt und können auf dem Handy gezeigt werden.',
  },
};

const currencyFor = (line: Line, random: Random): 'EUR' | 'USD' | 'GBP' => {
  if (line === 'ticket') return 'EUR';
  const roll = random.next();
  return roll < 0.85 ? 'EUR' : roll < 0.95 ? 'GBP' : 'USD';
};

export const planProducts = (events: readonly PlannedEvent[]): PlannedDocument[] => {
  const random = createRandom(seedOf('products'));
  const slugFor = createSlugRegistry();
  const ticketed = events.filter((event) => event.published && event.price > 0);
  const seeds: ProductSeed[] = [
    ...MERCHANDISE.map(([name, price]): ProductSeed => ({ line: 'merchandise', name, price })),
    ...PUBLICATIONS.map(([name, price]): ProductSeed => ({ line: 'publication', name, price })),
    ...DEVICES.map(([name, price]): ProductSeed => ({ line: 'device', name, price })),
    ...random.sample(ticketed, TICKET_COUNT).map((event): ProductSeed => ({
      line: 'ticket',
      name: { en: `Ticket: ${event.title.en}`, de: `Ticket: ${event.title.de}` },
      price: event.price,
      event,
    })),
  ];
  const numbers: Record<Line, number> = { merchandise: 0, publication: 0, device: 0, ticket: 0 };

  return seeds.map((seed, index): PlannedDocument => {
    numbers[seed.line] += 1;
    const sku = `${PREFIX[seed.line]}-${String(numbers[seed.line]).padStart(3, '0')}`;
    const slugs = { en: slugFor(seed.name.en), de: slugFor(seed.name.de) };
    const event = seed.event ? documentRef(UID.event, seed.event.key) : null;
    const localized = (locale: Locale) => ({
      name: seed.name[locale],
      slug: slugs[locale],
      description: DESCRIPTION[seed.line][locale].replace('{name}', seed.name[locale]),
      event,
    });
    // Three products are not in the shop yet; two have a price change waiting to be published.
    const publish = index % 21 !== 9;
    const repriced = publish && index % 23 === 5;
    return {
      contentType: UID.product,
      key: slugs.en,
      identity: { field: 'slug', value: slugs.en },
      versions: [
        {
          locale: 'en',
          data: {
            ...localized('en'),
            sort: sortValueAt(index),
            sku,
            price: seed.price,
            currency: currencyFor(seed.line, random),
            inStock: random.chance(0.85),
            tags: random.sample(TAGS[seed.line], random.int(1, 3)),
            images: random.sample(IMAGE_KEYS, random.int(1, 3)).map(fileRef),
            manual: seed.line === 'device' ? fileRef(MANUAL_KEY) : null,
          },
        },
        { locale: 'de', data: localized('de') },
      ],
      publish,
      draftChanges: repriced ? [{ locale: 'en', data: { price: Math.round(seed.price * 1.1 * 2) / 2 } }] : [],
    };
  });
};
