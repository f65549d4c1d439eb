/**
 * `newsletter-signup`: a subscription by email. A second signup with the same email changes nothing
 * and answers exactly like the first, so the answer never tells whether an address was subscribed. Two
 * signups of one address at the same time (two instances, two connections) are one after the other: the
 * second finds the first's record.
 */
import type { CommandDefinition, CommandEnvironment } from '../plugins/public-api/server/src/public';

const SUBSCRIPTION = 'api::newsletter-subscription.newsletter-subscription';

const input = ({ z, locales }: CommandEnvironment) =>
  z.strictObject({
    email: z.string().trim().toLowerCase().max(254).check(z.email()).describe('The email address; stored trimmed and lower-cased.'),
    name: z.string().trim().min(1).max(200).optional().describe("The subscriber's name."),
    locale: (locales.length ? z.enum(locales as [string, ...string[]]) : z.never())
      .optional()
      .describe('The language of the newsletter: one of the configured locales.'),
    topics: z.array(z.string().trim().min(1).max(50)).max(20).optional().describe('Topics of interest.'),
    consent: z.literal(true, { error: 'Consent to receive the newsletter is required.' }).describe('Must be true.'),
  });

export const newsletterSignup: CommandDefinition<ReturnType<typeof input>> = {
  name: 'newsletter-signup',
  description:
    'Subscribe an email address to the newsletter, with consent. Signing up an address that is already subscribed changes nothing and answers the same way.',
  input,
  async run(signup, { strapi, lock }) {
    const subscriptions = strapi.documents(SUBSCRIPTION);
    // Commands run in a transaction: the lock is held until this signup's record is committed.
    await lock(signup.email);
    // Addresses stored before normalization (by editors) are matched regardless of case.
    const existing = await subscriptions.findFirst({ filters: { email: { $eqi: signup.email } }, fields: ['id'] } as never);
    if (!existing) {
      await subscriptions.create({
        data: {
          email: signup.email,
          name: signup.name ?? null,
          language: signup.locale ?? null,
          topics: signup.topics ? [...new Set(signup.topics)] : null,
          consent: signup.consent,
        },
      } as never);
    }
    return { status: 'accepted' };
  },
};
