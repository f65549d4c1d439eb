/**
 * Document ids of the shape Strapi generates (cuid2: 24 characters, a lowercase letter, then
 * lowercase letters and digits), drawn from a seeded generator so benchmark data is reproducible.
 */
import { createRandom } from '../random';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const ALPHABET = `${LETTERS}0123456789`;

export const DOCUMENT_ID_LENGTH = 24;

export const deterministicDocumentId = (seed: number): string => {
  const random = createRandom(seed);
  let id = LETTERS[random.int(0, LETTERS.length - 1)];
  while (id.length < DOCUMENT_ID_LENGTH) id += ALPHABET[random.int(0, ALPHABET.length - 1)];
  return id;
};
