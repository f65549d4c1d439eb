/**
 * Secrets come from the environment only. A missing one stops the start with a message naming it.
 */
export class MissingSecretError extends Error {
  override name = 'MissingSecretError';
}

export const requiredSecret = (value: string | undefined, name: string): string => {
  if (!value || value.trim() === '') {
    throw new MissingSecretError(`${name} is not set: copy .env.example to .env and fill it in, or run \`npm run demo\` once.`);
  }
  return value;
};

export const requiredList = (value: string[] | undefined, name: string): string[] => {
  if (!value || value.length === 0 || value.some((item) => item.trim() === '')) {
    throw new MissingSecretError(`${name} is not set: it is a comma-separated list of random strings (see .env.example).`);
  }
  return value;
};
