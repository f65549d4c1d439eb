/**
 * Labels people read, made from the keys of a schema when it gives none. Pure.
 */

/** `startDate` -> `Start date`, `live-music` -> `Live music`. */
export const humanize = (key: string): string => {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[-_]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};
