/**
 * The closed vocabulary of `meta.reason` (contract sections 8 and 22): every reason an /api/v2 error can
 * carry, the statuses it comes with, and what it means. http/errors.ts types `reason` by this table, so a
 * reason that is not here does not compile, and one given with a status it does not list does not either;
 * the OpenAPI document declares the reasons of each status as an enum (openapi/errors.ts) and docs/api.md
 * lists them (test/unit/error-reasons.test.ts checks both, and that every reason is in use).
 *
 * A reason names the rule a request broke, never anything of the data: the whole table is public.
 * The one open end: a command's own checks give reasons of the application's (commands/types.ts).
 */
/** A status of http/errors.ts's table (a number here, so that the two tables import one way). */
type ReasonEntry = { readonly statuses: readonly number[]; readonly meaning: string };

export const ERROR_REASONS = {
  // Routing, methods and media types.
  unknown_path: { statuses: [404], meaning: 'No endpoint exists at this path.' },
  method_not_allowed: { statuses: [405], meaning: 'The endpoint never takes this method.' },
  not_acceptable: { statuses: [406], meaning: 'Accept excludes every media type the endpoint answers with.' },
  media_type_parameters: { statuses: [406, 415], meaning: 'The JSON:API media type carries a parameter other than ext or profile.' },
  extension_unsupported: { statuses: [406, 415], meaning: 'The JSON:API media type names an extension the endpoint does not support.' },
  unsupported_media_type: { statuses: [415], meaning: 'The body is not of a media type the endpoint takes.' },
  atomic_extension_required: { statuses: [415], meaning: 'POST /operations needs the atomic extension in Content-Type.' },
  // The request as HTTP.
  host_invalid: { statuses: [400], meaning: 'The Host (or X-Forwarded-Host, or the absolute-form authority) is not a plain host[:port].' },
  malformed_http: { statuses: [400], meaning: 'The request is not well-formed HTTP/1.1.' },
  header_section_too_large: { statuses: [431], meaning: 'The request line and header fields are longer than the server reads.' },
  chunk_extensions_too_large: { statuses: [413], meaning: "The body's chunk extensions are longer than the server reads." },
  request_incomplete: { statuses: [408], meaning: 'The request was not received in full in the time the server allows.' },
  unstorable_text: { statuses: [400, 422], meaning: 'Text holds a character no database stores (NUL or a lone surrogate).' },
  origin_not_allowed: { statuses: [403], meaning: "The browser Origin is not one of the key's allowed origins." },
  // Load and limits.
  overloaded: { statuses: [503], meaning: 'Too many requests are in flight; retry after Retry-After.' },
  write_conflict: { statuses: [503], meaning: 'The write met another at the same time and was rolled back; send it again.' },
  uploads_busy: { statuses: [503], meaning: 'Too many command uploads are in flight; retry after Retry-After.' },
  rate_limited: { statuses: [429], meaning: "The key has not the units this request costs left in its rate limit's window." },
  cost_over_quota: { statuses: [429], meaning: "The request costs more than the key's whole quota; no wait helps." },
  unauthenticated_rate_limited: { statuses: [429], meaning: 'The client address made too many failed authentications.' },
  // Grants and what exists for the key.
  action_not_granted: { statuses: [403], meaning: 'The key lacks the grant for this action on this resource.' },
  preview_not_granted: { statuses: [403], meaning: 'Only a preview key may read drafts (`status=draft`).' },
  command_not_granted: { statuses: [403], meaning: 'The key may not run this command.' },
  client_id_not_supported: { statuses: [403], meaning: 'Records get their id from the server; `data.id` is not sent on create.' },
  resource_not_found: { statuses: [404], meaning: 'No resource exists at this path for this key.' },
  record_not_found: { statuses: [404], meaning: 'No record exists at this path for this key.' },
  command_not_found: { statuses: [404], meaning: 'No command exists with this name.' },
  // Query parameters.
  unknown_parameter: { statuses: [400], meaning: 'The query parameter does not apply to this endpoint.' },
  parameter_unknown: { statuses: [400], meaning: 'POST /operations takes no query parameter.' },
  parameter_repeated: { statuses: [400], meaning: 'The query parameter is given more than once.' },
  parameter_invalid: { statuses: [400], meaning: 'An asset transform parameter has a value it does not take.' },
  limit_invalid: { statuses: [400], meaning: '`limit` is not an integer in its range.' },
  sort_invalid: { statuses: [400], meaning: '`sort` names a key that is not sortable.' },
  sort_repeated: { statuses: [400], meaning: '`sort` names a key more than once.' },
  sort_value_too_long: { statuses: [400], meaning: 'A sorted value is too long to carry in a cursor.' },
  locale_unknown: { statuses: [400], meaning: '`locale` names a locale that is not configured.' },
  locale_list_too_long: { statuses: [400], meaning: '`locale` lists more locales than allowed.' },
  locale_repeated: { statuses: [400], meaning: '`locale` lists a locale more than once.' },
  status_invalid: { statuses: [400], meaning: '`status` is neither published nor draft.' },
  cursor_invalid: { statuses: [400], meaning: 'The cursor is malformed or tampered with.' },
  cursor_mismatch: { statuses: [400], meaning: 'The cursor was issued for another key, query, grants or locale.' },
  cursor_expired: { statuses: [400], meaning: 'The cursor is older than 24 hours.' },
  include_invalid: { statuses: [400], meaning: '`include` names a path that is not an expandable relation path.' },
  include_too_deep: { statuses: [400], meaning: '`include` names a path deeper than allowed.' },
  include_limit: { statuses: [400], meaning: '`include` names more paths than allowed.' },
  include_repeated: { statuses: [400], meaning: '`include` names a path more than once.' },
  include_too_large: { statuses: [400], meaning: 'The expansion asked for would read more records than a request may.' },
  filter_invalid: { statuses: [400], meaning: 'A parameter starting with filter is not filter[field] or filter[field][operator].' },
  filter_field_invalid: { statuses: [400], meaning: 'A filter names a field that is not filterable.' },
  filter_operator_invalid: { statuses: [400], meaning: "A filter's operator is unknown or does not apply to its field." },
  filter_value_invalid: { statuses: [400], meaning: "A filter's value is not of its field's type." },
  filter_value_too_long: { statuses: [400], meaning: "A filter's value is longer than allowed." },
  filter_repeated: { statuses: [400], meaning: 'A filter condition is given more than once.' },
  filter_limit: { statuses: [400], meaning: 'More filter conditions than allowed.' },
  fields_invalid: { statuses: [400], meaning: 'A sparse fieldset is not a list of field names.' },
  fields_limit: { statuses: [400], meaning: 'A sparse fieldset names more fields than allowed.' },
  fields_repeated: { statuses: [400], meaning: 'A sparse fieldset names a field more than once.' },
  fields_type_invalid: { statuses: [400], meaning: 'A sparse fieldset names a type this request does not return.' },
  fields_field_invalid: { statuses: [400], meaning: 'A sparse fieldset names a field that is not readable.' },
  // The sync feed.
  sync_token_invalid: { statuses: [400], meaning: 'The sync token is malformed or tampered with.' },
  sync_token_mismatch: { statuses: [400], meaning: 'The sync token was issued to another key or for another locale.' },
  sync_token_expired: { statuses: [410], meaning: 'The sync token is older than the 30 days changes are kept.' },
  sync_grants_changed: { statuses: [410], meaning: "The key's grants changed since the sync token was issued." },
  // Bodies.
  body_missing: { statuses: [400], meaning: 'The request needs a JSON body and has none.' },
  body_not_allowed: { statuses: [400], meaning: 'A DELETE request takes no body.' },
  body_not_utf8: { statuses: [400], meaning: 'The body is not valid UTF-8.' },
  body_malformed: { statuses: [400], meaning: 'The body is not valid JSON.' },
  body_too_deep: { statuses: [400], meaning: 'The JSON body nests deeper than allowed.' },
  body_incomplete: { statuses: [400], meaning: 'The body was not received completely.' },
  body_too_large: { statuses: [413], meaning: 'The body (or a multipart form) is larger than the operation takes.' },
  body_too_slow: { statuses: [408], meaning: 'The body did not arrive in the time allowed.' },
  body_stalled: { statuses: [408], meaning: 'The body stopped arriving for longer than allowed.' },
  file_too_large: { statuses: [413], meaning: 'An uploaded file is larger than allowed.' },
  multipart_malformed: { statuses: [400], meaning: 'The body is not well-formed multipart/form-data.' },
  multipart_document_missing: { statuses: [400], meaning: 'A multipart command request has not exactly one `data` part.' },
  multipart_part_unknown: { statuses: [400], meaning: 'A multipart part is not one the command takes.' },
  multipart_part_not_file: { statuses: [400], meaning: 'A file part of the command was sent as a field.' },
  multipart_part_repeated: { statuses: [400], meaning: 'A file part of the command was sent more than once.' },
  // Conditional requests and idempotency.
  if_match_invalid: { statuses: [400], meaning: 'If-Match is neither `*` nor a list of quoted entity tags.' },
  if_match_not_applicable: { statuses: [400], meaning: 'If-Match does not apply to POST /operations.' },
  precondition_failed: { statuses: [412], meaning: 'If-Match names no current ETag of the record.' },
  idempotency_key_invalid: { statuses: [400], meaning: 'The Idempotency-Key header is malformed.' },
  idempotency_key_reused: { statuses: [422], meaning: 'The Idempotency-Key was used before with another request.' },
  idempotency_in_progress: { statuses: [409], meaning: 'The first request with this Idempotency-Key is still running.' },
  idempotency_grants_changed: { statuses: [409], meaning: "The key's grants changed since the stored answer of this Idempotency-Key." },
  idempotency_superseded: { statuses: [409], meaning: 'The claim of this Idempotency-Key was taken over by a retry.' },
  // Documents of writes and atomic operations.
  document_invalid: { statuses: [400], meaning: 'The body is not a JSON:API document of the shape the operation takes.' },
  type_mismatch: { statuses: [409], meaning: "`data.type` is not the resource's type." },
  id_mismatch: { statuses: [409], meaning: '`data.id` is not the id of the record at this path.' },
  operation_invalid: { statuses: [400], meaning: 'An atomic operation is malformed.' },
  operation_not_supported: { statuses: [400], meaning: 'The atomic operation does not apply to this resource (e.g. add to a singleton).' },
  record_not_named: { statuses: [400], meaning: 'An atomic operation on a collection names no record.' },
  href_invalid: { statuses: [400], meaning: "An atomic operation's href is not a resource or record of this API." },
  too_many_operations: { statuses: [413], meaning: 'More atomic operations in one request than allowed.' },
  atomic_time_limit: { statuses: [503], meaning: 'The atomic operations took longer than their time limit and were rolled back.' },
  lid_unknown: { statuses: [400, 422], meaning: 'A lid names no record added by an earlier operation of the request.' },
  lid_repeated: { statuses: [400], meaning: 'Two operations of the request add records with one lid.' },
  lid_type_mismatch: { statuses: [400, 409], meaning: 'A lid names a record of another resource than the operation.' },
  // Values written.
  field_not_writable: { statuses: [422], meaning: 'The field is unknown or not writable with this key.' },
  value_invalid: { statuses: [422], meaning: "The value is not of the field's type or shape." },
  value_out_of_range: { statuses: [422], meaning: 'The value does not fit the column it is stored in.' },
  validation_failed: { statuses: [422], meaning: "The value breaks a rule of the content type, the application or the command's input." },
  hidden_field_invalid: { statuses: [422], meaning: 'A rule failed on a field the key may not read.' },
  duplicate_value: { statuses: [409, 422], meaning: 'Another record already holds this unique value.' },
  duplicate_slug: { statuses: [409], meaning: 'Another record of the publication already has this slug.' },
  richtext_invalid: { statuses: [422], meaning: 'The richtext document is not valid.' },
  unpublished_changes: { statuses: [409], meaning: 'The record has unpublished changes in the admin.' },
  relation_list_truncated: { statuses: [409], meaning: 'A whole reference list would drop references no read showed; send a change.' },
  target_not_found: { statuses: [422], meaning: 'A referenced record does not exist.' },
  target_not_readable: { statuses: [422], meaning: 'A referenced record is not readable with this key.' },
  target_repeated: { statuses: [422], meaning: 'A referenced record is named more than once.' },
  target_added_and_removed: { statuses: [422], meaning: 'A reference change both adds and removes one record.' },
  asset_not_found: { statuses: [404, 422], meaning: 'No asset exists at this URL, or with this id.' },
  asset_type_not_allowed: { statuses: [422], meaning: 'The asset is not of a type the media field takes.' },
  asset_repeated: { statuses: [422], meaning: 'An asset is listed more than once.' },
  // Commands.
  attribute_unknown: { statuses: [422], meaning: 'The attribute is not one the command takes.' },
  attribute_required: { statuses: [422], meaning: 'The command needs this attribute.' },
  file_type_not_accepted: { statuses: [422], meaning: 'The content of an uploaded file is not of a kind the command takes.' },
  // Assets and transforms.
  asset_content_missing: { statuses: [404], meaning: "The asset's file is missing from storage." },
  transform_not_a_preset: { statuses: [400], meaning: 'The transform is not one of the configured presets.' },
  not_an_image: { statuses: [400], meaning: 'Transforms apply to raster images only.' },
  svg_not_transformable: { statuses: [400], meaning: 'SVG images are served as they are, never transformed.' },
  image_too_large: { statuses: [422], meaning: 'The image is too large to transform.' },
  image_undecodable: { statuses: [422], meaning: 'The image cannot be decoded.' },
  range_not_satisfiable: { statuses: [416], meaning: 'The byte range cannot be served from this file.' },
  transforms_busy: { statuses: [503], meaning: 'Too many transforms are queued; retry after Retry-After.' },
  transform_timed_out: { statuses: [503], meaning: 'The transform did not finish in its time limit.' },
  asset_origin_busy: { statuses: [503], meaning: 'Too many reads from the upload storage are in flight.' },
  asset_origin_failed: { statuses: [502], meaning: "The file could not be read from the upload provider's storage." },
  asset_too_large: { statuses: [502], meaning: 'The stored file is larger than the server relays.' },
  asset_origin_timeout: { statuses: [504], meaning: "The upload provider's storage did not answer in time." },
} as const satisfies Record<string, ReasonEntry>;

export type ErrorReason = keyof typeof ERROR_REASONS;

/** The reasons that come with status `S` (every reason, when `S` is any status). */
export type ReasonOf<S extends number> = {
  [R in ErrorReason]: S extends (typeof ERROR_REASONS)[R]['statuses'][number] ? R : never;
}[ErrorReason];

/**
 * A reason a command's own check gives (the application's vocabulary, documented with its command):
 * made only by `commandReason`, so a bare string never passes for a reason of the table.
 */
export type CommandReason = string & { readonly commandReason: true };

export const commandReason = (reason: string): CommandReason => reason as CommandReason;

/** The reasons of one status, in table order. */
export const reasonsOf = (status: number): ErrorReason[] =>
  (Object.keys(ERROR_REASONS) as ErrorReason[]).filter((reason) => (ERROR_REASONS[reason].statuses as readonly number[]).includes(status));
