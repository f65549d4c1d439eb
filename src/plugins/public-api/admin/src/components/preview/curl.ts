/**
 * The example request the preview offers for a resource. Pure. The key is a shell variable, never
 * the secret: the example can be copied, pasted in a ticket or shown on a screen.
 */
export const KEY_VARIABLE = 'PUBLIC_DATA_API_KEY';

const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

export const curlExample = (apiBaseUrl: string, path: string, mode: 'collection' | 'singleton'): string => {
  const url = `${apiBaseUrl}${path}${mode === 'collection' ? '?limit=5' : ''}`;
  return [`curl ${quote(url)} \\`, `  -H "Authorization: Bearer $${KEY_VARIABLE}" \\`, `  -H 'Accept: application/vnd.api+json'`].join(
    '\n',
  );
};
