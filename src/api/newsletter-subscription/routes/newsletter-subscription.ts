import { factories } from '@strapi/strapi';

export default factories.createCoreRouter('api::newsletter-subscription.newsletter-subscription');
