export const PLUGIN_ID = 'public-api';

/** Prefixes a translation id with the plugin id. */
export const getTranslation = (id: string) => `${PLUGIN_ID}.${id}`;
