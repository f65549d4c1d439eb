/**
 * Event titles in English and German, by category. Pure word lists and templates.
 */
import type { Random } from '../random';

export const CATEGORIES = ['concert', 'exhibition', 'talk', 'workshop', 'theatre', 'film'] as const;
export type Category = (typeof CATEGORIES)[number];

export type Bilingual = { en: string; de: string };

const ENSEMBLES: Bilingual[] = [
  { en: 'The Harbour String Quartet', de: 'Das Hafen-Streichquartett' },
  { en: 'Elbe Chamber Orchestra', de: 'Das Elbe-Kammerorchester' },
  { en: 'City Youth Choir', de: 'Der Städtische Jugendchor' },
  { en: 'Brass Collective North', de: 'Das Blechbläserkollektiv Nord' },
];
const COMPOSERS = ['Bach', 'Brahms', 'Clara Schumann', 'Fanny Hensel', 'Debussy', 'Arvo Pärt', 'Philip Glass', 'Beethoven', 'Mendelssohn'];
const GENRES: Bilingual[] = [
  { en: 'Jazz Night', de: 'Jazzabend' },
  { en: 'Piano Night', de: 'Klavierabend' },
  { en: 'Organ Night', de: 'Orgelnacht' },
  { en: 'Tango Night', de: 'Tangoabend' },
  { en: 'Blues Night', de: 'Bluesabend' },
  { en: 'Soul Night', de: 'Soulnacht' },
];
const ARTISTS = [
  'Mara Lindqvist',
  'Jonas Okafor Trio',
  'The Velvet Harbour',
  'Lena Brandt & Band',
  'Kofi Mensah Quartet',
  'Ida Sørensen',
  'Paulo Reyes Ensemble',
];

const EXHIBITIONS: Bilingual[] = [
  { en: 'Paper Cities', de: 'Papierstädte' },
  { en: 'Light and Shadow', de: 'Licht und Schatten' },
  { en: 'The Sea Remembers', de: 'Das Meer erinnert sich' },
  { en: 'Women of the Bauhaus', de: 'Frauen am Bauhaus' },
  { en: 'Photographs of the Port, 1950–1980', de: 'Fotografien aus dem Hafen, 1950–1980' },
  { en: 'Textile Futures', de: 'Textile Zukünfte' },
  { en: 'Small Worlds: Miniature Models', de: 'Kleine Welten: Miniaturmodelle' },
  { en: 'Ceramics Now', de: 'Keramik heute' },
  { en: 'Maps of Imaginary Places', de: 'Karten erfundener Orte' },
  { en: 'Street Photography from Leipzig', de: 'Straßenfotografie aus Leipzig' },
];

const TOPICS: Bilingual[] = [
  { en: 'the future of public libraries', de: 'die Zukunft öffentlicher Bibliotheken' },
  { en: 'urban gardening', de: 'urbanes Gärtnern' },
  { en: 'climate-friendly architecture', de: 'klimafreundliche Architektur' },
  { en: 'the history of the harbour', de: 'die Geschichte des Hafens' },
  { en: 'women in jazz', de: 'Frauen im Jazz' },
  { en: 'writing crime fiction', de: 'das Schreiben von Kriminalromanen' },
  { en: 'restoring old paintings', de: 'die Restaurierung alter Gemälde' },
  { en: 'artificial intelligence and art', de: 'künstliche Intelligenz und Kunst' },
];
const SPEAKERS = [
  'Dr. Amelie Hartmann',
  'Prof. Samuel Osei',
  'Nora Castellanos',
  'Dr. Felix Wagner',
  'Hanna Yilmaz',
  'Tomasz Nowak',
  'Ruth Abramowicz',
];

const CRAFTS: Bilingual[] = [
  { en: 'Screen printing', de: 'Siebdruck' },
  { en: 'Linocut', de: 'Linolschnitt' },
  { en: 'Bookbinding', de: 'Buchbinden' },
  { en: 'Watercolour sketching', de: 'Aquarellskizzen' },
  { en: 'Pottery', de: 'Töpfern' },
  { en: 'Creative coding', de: 'Kreatives Programmieren' },
  { en: 'Podcast production', de: 'Podcast-Produktion' },
  { en: 'Urban sketching', de: 'Urban Sketching' },
];

const PLAYS: Bilingual[] = [
  { en: 'The Lighthouse Keeper', de: 'Der Leuchtturmwärter' },
  { en: 'A Winter’s Tale', de: 'Ein Wintermärchen' },
  { en: 'The Glass Menagerie', de: 'Die Glasmenagerie' },
  { en: 'Waiting for the Ferry', de: 'Warten auf die Fähre' },
  { en: 'The Tailor of Altona', de: 'Der Schneider von Altona' },
  { en: 'Hamlet', de: 'Hamlet' },
  { en: 'The Visit', de: 'Der Besuch der alten Dame' },
  { en: 'Mother Courage', de: 'Mutter Courage' },
];

const FILMS: Bilingual[] = [
  { en: 'Metropolis', de: 'Metropolis' },
  { en: 'Wings of Desire', de: 'Der Himmel über Berlin' },
  { en: 'Run Lola Run', de: 'Lola rennt' },
  { en: 'The Lives of Others', de: 'Das Leben der Anderen' },
  { en: 'Good Bye, Lenin!', de: 'Good Bye, Lenin!' },
  { en: 'Paris, Texas', de: 'Paris, Texas' },
  { en: 'Nosferatu', de: 'Nosferatu' },
  { en: 'Short Films from the Harbour', de: 'Kurzfilme aus dem Hafen' },
];

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export const eventTitle = (category: Category, random: Random): Bilingual => {
  switch (category) {
    case 'concert': {
      const variant = random.int(0, 3);
      if (variant === 0) {
        const ensemble = random.pick(ENSEMBLES);
        const composer = random.pick(COMPOSERS);
        return { en: `${ensemble.en} plays ${composer}`, de: `${ensemble.de} spielt ${composer}` };
      }
      if (variant === 1) return random.pick(GENRES);
      if (variant === 2) {
        const artist = random.pick(ARTISTS);
        return { en: `${artist} Live`, de: `${artist} live` };
      }
      const composer = random.pick(COMPOSERS);
      return { en: `Lunchtime Concert: ${composer}`, de: `Mittagskonzert: ${composer}` };
    }
    case 'exhibition': {
      const exhibition = random.pick(EXHIBITIONS);
      const variant = random.int(0, 2);
      if (variant === 0) return exhibition;
      if (variant === 1) return { en: `Guided Tour: ${exhibition.en}`, de: `Führung: ${exhibition.de}` };
      return { en: `Opening: ${exhibition.en}`, de: `Vernissage: ${exhibition.de}` };
    }
    case 'talk': {
      const topic = random.pick(TOPICS);
      const speaker = random.pick(SPEAKERS);
      const variant = random.int(0, 2);
      if (variant === 0)
        return { en: `On ${topic.en}: a Conversation with ${speaker}`, de: `Über ${topic.de}: ein Gespräch mit ${speaker}` };
      if (variant === 1) return { en: `${speaker} on ${topic.en}`, de: `${speaker} über ${topic.de}` };
      return { en: `Panel: ${capitalized(topic.en)}`, de: `Podium: ${capitalized(topic.de)}` };
    }
    case 'workshop': {
      const craft = random.pick(CRAFTS);
      const variant = random.int(0, 2);
      if (variant === 0) return { en: `${craft.en} for Beginners`, de: `${craft.de} für Einsteiger` };
      if (variant === 1) return { en: `${craft.en}: a Workshop for Families`, de: `${craft.de}: Workshop für Familien` };
      return { en: `Masterclass: ${craft.en}`, de: `Meisterkurs: ${craft.de}` };
    }
    case 'theatre': {
      const play = random.pick(PLAYS);
      const variant = random.int(0, 2);
      if (variant === 0) return play;
      if (variant === 1) return { en: `${play.en} (Matinee)`, de: `${play.de} (Matinee)` };
      return { en: `${play.en}: Premiere`, de: `${play.de}: Premiere` };
    }
    case 'film': {
      const film = random.pick(FILMS);
      const variant = random.int(0, 2);
      if (variant === 0) return { en: `Film Night: ${film.en}`, de: `Filmabend: ${film.de}` };
      if (variant === 1) return { en: `Open-Air Cinema: ${film.en}`, de: `Open-Air-Kino: ${film.de}` };
      return { en: `${film.en} with Live Score`, de: `${film.de} mit Live-Musik` };
    }
  }
};
