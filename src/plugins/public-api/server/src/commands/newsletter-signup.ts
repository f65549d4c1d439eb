/**
 * `newsletter-signup`: a subscription by email. A second signup with the same email changes nothing
 * and answers exactly like the first, so the answer never tells whether an address was subscribed. Two
 * signups of one address at the same time (two instances, two connections) are one after the other: the
 * second finds the first's record.
 */
import { z } from 'zod';
import { lockUntilCommit } from '../database/connection';
import { defineCommand } from './types';

const SUBSCRIPTION = 'api::newsletter-subscription.newsletter-subscription';

export const newsletterSignup = defineCommand({
  name: 'newsletter-signup',
  description:
    'Subscribe an email address to the newsletter, with consent. Signing up an address that is already subscribed changes nothing and answers the same way.',
  input: ({ locales }) =>
    z.strictObject({
      email: z.string().trim().toLowerCase().max(254).check(z.email()).describe('The email address; stored trimmed and lower-cased.'),
      name: z.string().trim().min(1).max(200).optional().describe("The subscriber's name."),
      locale: (locales.length ? z.enum(locales as [string, ...string[]]) : z.never())
        .optional()
        .describe('The language of the newsletter: one of the configured locales.'),
      topics: z.array(z.string().trim().min(1).max(50)).max(20).optional().describe('Topics of interest.'),
      consent: z.literal(true, { error: 'Consent to receive the newsletter is required.' }).describe('Must be true.'),
    }),
  async run(input, { strapi }) {
    const subscriptions = strapi.documents(SUBSCRIPTION);
    // Commands run in a transaction: the lock is held until this signup's record is committed.
    await lockUntilCommit(strapi, `public-api:newsletter:${input.email}`);
    // Addresses stored before normalization (by editors) are matched regardless of case.
    const existing = await subscriptions.findFirst({ filters: { email: { $eqi: input.email } }, fields: ['id'] } as never);
    if (!existing) {
      await subscriptions.create({
        data: {
          email: input.email,
          name: input.name ?? null,
          language: input.locale ?? null,
          topics: input.topics ? [...new Set(input.topics)] : null,
          consent: input.consent,
        },
      } as never);
    }
    return { status: 'accepted' };
  },
});
