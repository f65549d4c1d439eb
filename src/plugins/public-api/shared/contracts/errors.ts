/**
 * How admin routes answer a refused input: Strapi's own error envelope (a `ValidationError` with
 * `details.errors`), one entry per offending field. `path` names the field in the request body, so
 * the form puts each message under its field.
 */
export type FieldIssue = {
  path: string[];
  message: string;
};

export type AdminErrorBody = {
  data: null;
  error: {
    status: number;
    name: string;
    message: string;
    details?: { errors?: FieldIssue[] };
  };
};
