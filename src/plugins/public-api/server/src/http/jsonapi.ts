/**
 * Top-level JSON:API members shared by every document /api/v2 sends.
 */
export const JSONAPI = { version: '1.1' } as const;

export const document = <T extends Record<string, unknown>>(members: T) => ({ jsonapi: JSONAPI, ...members });
