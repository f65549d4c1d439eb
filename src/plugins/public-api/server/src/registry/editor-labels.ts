/**
 * The content manager's stored configuration of a content type -> the labels an admin gave its fields.
 * Pure: the configuration arrives as stored (JSON text, or parsed on PostgreSQL).
 */
type Metadata = { edit?: { label?: unknown }; list?: { label?: unknown } };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const parsed = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
};

/**
 * `{ field: label }` for the fields whose edit-view label differs from the field's name (Strapi stores the
 * name itself until someone renames it, and a name is no label: `startsAt` is better said `Starts at`).
 */
export const editorLabelsOf = (configuration: unknown): Record<string, string> => {
  const value = parsed(configuration);
  if (!isRecord(value) || !isRecord(value.metadatas)) return {};
  const labels: Record<string, string> = {};
  for (const [field, metadata] of Object.entries(value.metadatas as Record<string, Metadata>)) {
    const label = isRecord(metadata) ? metadata.edit?.label : undefined;
    if (typeof label === 'string' && label.trim() !== '' && label !== field) labels[field] = label.trim();
  }
  return labels;
};
