/**
 * JSON pointers into request documents (RFC 6901), for `source.pointer`. Pure.
 */
const escapeToken = (token: string | number): string => String(token).replace(/~/g, '~0').replace(/\//g, '~1');

export const pointer = (...tokens: (string | number)[]): string => tokens.map((token) => `/${escapeToken(token)}`).join('');

export const attributePointer = (field: string, ...rest: (string | number)[]): string => pointer('data', 'attributes', field, ...rest);
