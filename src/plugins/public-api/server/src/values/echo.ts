/**
 * Echoing what a caller sent inside an error's detail. Pure.
 */
const ECHO_LIMIT = 80;

/** The caller's own text, quoted and cut short so that a huge parameter cannot inflate the error. */
export const echo = (text: string): string => {
  const codePoints = Array.from(text);
  return `'${codePoints.length > ECHO_LIMIT ? `${codePoints.slice(0, ECHO_LIMIT).join('')}…` : text}'`;
};
