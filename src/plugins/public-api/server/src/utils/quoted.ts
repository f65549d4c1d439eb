/**
 * A value from an application's configuration or code as a start-up message shows it: a string in quotes,
 * anything else as JSON, and always on one line (control characters escaped), so the line that stops the
 * start stays one line whatever the value holds.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped
const CONTROL = /[\u0000-\u001f\u007f]/g;

export const quoted = (value: unknown): string => {
  if (typeof value === 'string') return `'${value.replace(CONTROL, (character) => JSON.stringify(character).slice(1, -1))}'`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // A BigInt, a cycle: its type says enough.
    return `a ${typeof value}`;
  }
};
