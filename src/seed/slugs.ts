/**
 * Slugs as Strapi's uid field would make them, and unique the way it makes them unique. Pure.
 */
const TRANSLITERATION: Record<string, string> = {
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  ß: 'ss',
  Ä: 'ae',
  Ö: 'oe',
  Ü: 'ue',
  é: 'e',
  è: 'e',
  á: 'a',
  à: 'a',
};

export const slugify = (text: string): string =>
  text
    .replace(/[äöüßÄÖÜéèáà]/g, (letter) => TRANSLITERATION[letter] ?? letter)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/**
 * Hands out slugs unique within one registry: one per content type (and locale), or per website for
 * website-scoped types. The second "About us" of a registry becomes `about-us-1`, as Strapi would suggest.
 */
export const createSlugRegistry = () => {
  const taken = new Set<string>();
  return (text: string): string => {
    const base = slugify(text);
    let slug = base;
    for (let n = 1; taken.has(slug); n += 1) slug = `${base}-${n}`;
    taken.add(slug);
    return slug;
  };
};
