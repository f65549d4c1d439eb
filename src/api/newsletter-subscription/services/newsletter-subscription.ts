import { factories } from '@strapi/strapi';

export default factories.createCoreService('api::newsletter-subscription.newsletter-subscription');
