import schema from './schema.json';

/**
 * Joined by the read path and the asset lookup, which need a file's content version and exact size with
 * the file.
 */
export const FILE_VERSIONS_TABLE = schema.collectionName;

export default { schema };
