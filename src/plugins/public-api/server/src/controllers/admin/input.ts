/**
 * The shapes admin request bodies must have, checked before a service sees them. Services check
 * meaning (names, expiry, grants against the registry, publications); these check only types and
 * unknown members, and refuse with the same ValidationError envelope, one issue per field.
 */
import { errors } from '@strapi/utils';
import { z } from 'zod';

const keyDetails = {
  name: z.string({ error: 'A key needs a name.' }),
  description: z.string({ error: 'The description is text.' }).nullable().optional(),
  expiresAt: z.string({ error: 'The expiry is a date-time or null.' }).nullable().optional(),
  grants: z.unknown().optional(),
  /** The key's rate limit, or null for the default; its meaning (ranges) is checked by the keys service. */
  limits: z.unknown().optional(),
  cache: z.unknown().optional(),
  /** Whether the key may read drafts (contract section 15). */
  preview: z.boolean({ error: 'Preview is on or off (true or false).' }).optional(),
};

export const createKeySchema = z.object(keyDetails).strict();
export const updateKeySchema = z.object(keyDetails).partial().strict();
export const previewSchema = z
  .object({ grants: z.unknown(), keyId: z.number().int().positive().optional(), preview: z.boolean().optional() })
  .strict();

export const parseBody = <T extends z.ZodType>(schema: T, body: unknown): z.output<T> => {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({
    path: issue.path.map(String),
    message:
      issue.code === 'unrecognized_keys' ? `Unknown member${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.` : issue.message,
    name: 'ValidationError',
  }));
  throw new errors.ValidationError(issues.map((issue) => issue.message).join('\n'), { errors: issues });
};
